import { createSocket, type Socket } from 'node:dgram';
import { auditRows } from './support/audit-rows';
import { DnsServer, freeDnsPort } from './support/dns-server';
import { expectError } from './support/expectations';
import { authed, createAccount, createCompanies, login } from './support/fixtures';
import { JoseIdp } from './support/jose-idp';
import { connectionBody, type DomainView } from './support/sso-domains';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * E-mail domains are proven by DNS before they count (docs/contract.md "Company single sign-on"): the TXT record
 * `_staff-auth-challenge.<domain>` must hold the company's token, looked up now on a real DNS server (dnsmasq),
 * and every way a lookup fails is a clear reason in the answer, never a 500.
 */
describe('proving SSO e-mail domains by DNS', () => {
  let dns: DnsServer;
  let idp: JoseIdp;
  let t: TestApp;
  let a: { id: number };
  let b: { id: number };
  let aJwt: string;
  let bJwt: string;

  const connection = (domains: string[]) => connectionBody(idp.issuer, domains);
  const domainsOf = (body: { email_domains: DomainView[] }) =>
    Object.fromEntries(body.email_domains.map((d) => [d.domain, d]));
  const verify = (jwt: string) => authed(t, jwt).post('/v1/sso/connection/domains/verify').expect(200);

  beforeAll(async () => {
    dns = await DnsServer.start();
    idp = new JoseIdp('staff-auth');
    await idp.start();
    t = await startTestApp({ env: { SSO_INSECURE_ISSUERS: '127.0.0.1', DNS_SERVERS: dns.servers } });
    [a, b] = await createCompanies(t, 'Prover A', 'Prover B');
    aJwt = (await login(t, await createAccount(t, [a.id], ['*']), a.id)).jwt;
    bJwt = (await login(t, await createAccount(t, [b.id], ['*']), b.id)).jwt;
  });
  afterAll(async () => {
    await idp?.stop();
    await t?.close();
    await dns?.stop();
  });

  it('proves a domain whose TXT record holds the token, and says why the others stay unproven', async () => {
    const saved = await authed(t, aJwt).put(
      '/v1/sso/connection',
      connection(['ok.example', 'wrong.example', 'none.example']),
    );
    expect(saved.status).toBe(200);
    const listed = domainsOf(saved.body);
    expect(Object.values(listed).map((d) => [d.domain, d.verified, d.dns_txt.name])).toEqual([
      ['none.example', false, '_staff-auth-challenge.none.example'],
      ['ok.example', false, '_staff-auth-challenge.ok.example'],
      ['wrong.example', false, '_staff-auth-challenge.wrong.example'],
    ]);
    // The token among other TXT values (an SPF record), as real zones have them.
    await dns.publish(listed['ok.example'].dns_txt.name, 'v=spf1 -all', listed['ok.example'].dns_txt.value);
    await dns.publish(listed['wrong.example'].dns_txt.name, 'staff-auth-domain-verification=not-this-one');
    const verified = domainsOf((await verify(aJwt)).body);
    expect(verified['ok.example']).toMatchObject({ verified: true });
    expect(verified['ok.example'].error).toBeUndefined();
    expect(verified['wrong.example']).toMatchObject({ verified: false, error: expect.stringMatching(/does not hold/) });
    expect(verified['none.example']).toMatchObject({ verified: false, error: expect.stringMatching(/No TXT record/) });
    const events = await auditRows(t, a.id, 'sso.connection_changed');
    expect(events.map((event) => event.details)).toContainEqual({ action: 'domain_verified', domain: 'ok.example' });
  });

  it('keeps a proof and its token when the domain is listed again; a dropped domain starts over', async () => {
    const before = domainsOf((await authed(t, aJwt).get('/v1/sso/connection').expect(200)).body);
    const again = domainsOf(
      (
        await authed(t, aJwt)
          .put('/v1/sso/connection', connection(['ok.example', 'wrong.example']))
          .expect(200)
      ).body,
    );
    expect(again['ok.example']).toEqual(before['ok.example']);
    expect(again['wrong.example'].dns_txt).toEqual(before['wrong.example'].dns_txt);
    expect(again['none.example']).toBeUndefined();
    const readded = domainsOf(
      (
        await authed(t, aJwt)
          .put('/v1/sso/connection', connection(['ok.example', 'none.example']))
          .expect(200)
      ).body,
    );
    expect(readded['none.example'].dns_txt.value).not.toBe(before['none.example'].dns_txt.value);
  });

  it('a proven domain is one company’s (409 for another); an unproven claim blocks nobody', async () => {
    expectError(await authed(t, bJwt).put('/v1/sso/connection', connection(['ok.example'])), 409, 'error_conflict');
    // A still claims none.example, unproven: B may list it too, and prove it first.
    const saved = domainsOf(
      (
        await authed(t, bJwt)
          .put('/v1/sso/connection', connection(['none.example']))
          .expect(200)
      ).body,
    );
    await dns.publish(saved['none.example'].dns_txt.name, saved['none.example'].dns_txt.value);
    expect(domainsOf((await verify(bJwt)).body)['none.example'].verified).toBe(true);
    // A's claim was dropped; A cannot list it again, nor prove it.
    expect(
      domainsOf((await authed(t, aJwt).get('/v1/sso/connection').expect(200)).body)['none.example'],
    ).toBeUndefined();
    expectError(
      await authed(t, aJwt).put('/v1/sso/connection', connection(['ok.example', 'none.example'])),
      409,
      'error_conflict',
    );
  });

  it('two companies proving one domain at the same moment: exactly one keeps it, the other is told', async () => {
    const [one, two] = await Promise.all(
      [
        [aJwt, 'ok.example'],
        [bJwt, 'none.example'],
      ].map(async ([jwt, proven]) => {
        const saved = await authed(t, jwt).put('/v1/sso/connection', connection([proven, 'race.example']));
        expect(saved.status).toBe(200);
        return domainsOf(saved.body);
      }),
    );
    // Both tokens in the zone at once (one TXT name may hold several records).
    await dns.publish(
      one['race.example'].dns_txt.name,
      one['race.example'].dns_txt.value,
      two['race.example'].dns_txt.value,
    );
    const answers = await Promise.all([verify(aJwt), verify(bJwt)]);
    const outcomes = answers.map((answer) => domainsOf(answer.body)['race.example']);
    expect(outcomes.filter((domain) => domain?.verified)).toHaveLength(1);
    const loser = outcomes.find((domain) => !domain?.verified);
    // Verified in between (its claim already dropped when it looked), or refused by the one-owner rule.
    if (loser !== undefined) expect(loser.error).toBe('Another company proved this domain first.');
    const owners = await Promise.all(
      [aJwt, bJwt].map(async (jwt) => domainsOf((await authed(t, jwt).get('/v1/sso/connection').expect(200)).body)),
    );
    expect(owners.filter((domains) => domains['race.example']?.verified)).toHaveLength(1);
    expect(owners.filter((domains) => domains['race.example'] !== undefined)).toHaveLength(1);
  });

  it('start by e-mail finds the company that proved the domain, and nobody for a domain only listed', async () => {
    const byEmail = (email: string) => t.http().post('/v1/sso/start').send({ email, return_to: '/admin' });
    expect((await byEmail('someone@ok.example')).status).toBe(200);
    await authed(t, aJwt)
      .put('/v1/sso/connection', connection(['ok.example', 'listed.example']))
      .expect(200);
    expectError(await byEmail('someone@listed.example'), 404, 'error_not_found');
  });
});

describe('proving SSO e-mail domains when DNS fails', () => {
  let idp: JoseIdp;
  let silent: Socket;
  const apps: TestApp[] = [];

  /** An app whose DNS_SERVERS is `servers`, a company with a connection listing one domain, its owner's JWT. */
  const appAsking = async (servers: string) => {
    const t = await startTestApp({ env: { SSO_INSECURE_ISSUERS: '127.0.0.1', DNS_SERVERS: servers } });
    apps.push(t);
    const [company] = await createCompanies(t, 'Offline');
    const jwt = (await login(t, await createAccount(t, [company.id], ['*']), company.id)).jwt;
    await authed(t, jwt)
      .put('/v1/sso/connection', connectionBody(idp.issuer, ['offline.example']))
      .expect(200);
    return { t, jwt };
  };

  beforeAll(async () => {
    idp = new JoseIdp('staff-auth');
    await idp.start();
    // A DNS server that receives every query and never answers.
    silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await Promise.all(apps.map((t) => t.close()));
    await idp?.stop();
    silent?.close();
  });

  it.each([
    ['nothing listens on its port', async () => `127.0.0.1:${await freeDnsPort()}`, /lookup .* failed/],
    ['it never answers', async () => `127.0.0.1:${silent.address().port}`, /did not answer in time/],
  ])('answers 200 with the reason when %s, within 5 s, and proves nothing', async (_case, servers, reason) => {
    const { t, jwt } = await appAsking(await servers());
    const began = performance.now();
    const res = await authed(t, jwt).post('/v1/sso/connection/domains/verify');
    const took = performance.now() - began;
    expect(res.status).toBe(200);
    expect(res.body.email_domains).toEqual([
      expect.objectContaining({ domain: 'offline.example', verified: false, error: expect.stringMatching(reason) }),
    ]);
    expect(took).toBeLessThan(5000);
    console.log(`DNS ${_case}: answered in ${Math.round(took)} ms: ${res.body.email_domains[0].error}`);
  });
});
