import fc from 'fast-check';
import type { AddressInfo } from 'node:net';
import { authed, createAccount, createCompanies, login } from './support/fixtures';
import { JoseIdp } from './support/jose-idp';
import { connectionBody } from './support/sso-domains';
import { startTestApp, type TestApp } from './support/test-app';

const APP_ORIGIN = 'https://app.example.com';
/** FC_SEED=<n> replays a run (the seed is printed); FC_RUNS=<n> makes it longer. */
const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env.FC_RUNS ?? 2000);

/** What browsers, URL parsers and header writers treat specially, and look-alikes of `/`, `\` and `.`. */
const PIECES = [
  '/',
  '//',
  '\\',
  '\t',
  '\r',
  '\n',
  '\r\n',
  ' ',
  '\u0000',
  '\u000b',
  '\u000c',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u200b',
  '\u2028',
  '\ufeff',
  '%2f',
  '%2F',
  '%5c',
  '%5C',
  '%09',
  '%0a',
  '%0d%0a',
  '%00',
  '%25',
  '%',
  '%%2f',
  '.',
  '..',
  '/..',
  '/./',
  '@',
  ':',
  '?',
  '#',
  '&',
  ';',
  '=',
  'admin',
  'evil.example',
  'app.example.com',
  'app.example.com.evil.example',
  'https:',
  'http:',
  'javascript:',
  'data:',
  'HTTPS://',
  'https://',
  APP_ORIGIN,
  `${APP_ORIGIN}@evil.example`,
  'https://evil.example',
  '\u2215',
  '\u2044',
  '\uff0f',
  '\uff3c',
  '\u29f8',
  '\u3002',
  '\uff0e',
  '\u0131',
  'ｅｖｉｌ',
  '[::1]',
  '127.0.0.1',
  'localhost',
  '0x7f000001',
  'xn--',
  '\ud800',
  '\udfff',
] as const;

const candidate = fc.oneof(
  { weight: 5, arbitrary: fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 8 }).map((p) => p.join('')) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.constantFrom('/', '/admin', `${APP_ORIGIN}/`, ''),
        fc.array(fc.constantFrom(...PIECES), { maxLength: 5 }),
      )
      .map(([head, tail]) => head + tail.join('')),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 24 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 24 }) },
);

/**
 * Issue 34, finding 2, as a property: whatever `return_to` a client sends, `POST /v1/sso/start` answers 200 or
 * 400 `error_validation` naming `return_to` (never a 5xx), and where it was accepted the callback's `Location`,
 * resolved by the WHATWG URL parser as a browser resolves it, is on this service or an origin of CORS_ORIGINS.
 */
describe('return_to, as a property over thousands of hostile strings', () => {
  let t: TestApp;
  let idp: JoseIdp;
  let company: { id: number };
  let base: string;

  beforeAll(async () => {
    idp = new JoseIdp('staff-auth');
    await idp.start();
    t = await startTestApp({ env: { SSO_INSECURE_ISSUERS: '127.0.0.1', CORS_ORIGINS: APP_ORIGIN } });
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    [company] = await createCompanies(t, 'Returning');
    const jwt = (await login(t, await createAccount(t, [company.id], ['*']), company.id)).jwt;
    await authed(t, jwt)
      .put('/v1/sso/connection', connectionBody(idp.issuer, ['returning.example']))
      .expect(200);
  });
  afterAll(async () => {
    await idp?.stop();
    await t?.close();
  });

  it('never answers 5xx, and nothing accepted leads to another origin', async () => {
    console.log(`return_to property: FC_SEED=${SEED} FC_RUNS=${RUNS}`);
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(candidate, async (returnTo) => {
        const started = await fetch(`${base}/v1/sso/start`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ company_id: company.id, return_to: returnTo }),
        });
        const body = (await started.json()) as { authorization_url?: string; error?: string[]; details?: unknown };
        if (started.status === 400) {
          expect(body.error).toEqual(['error_validation']);
          expect(body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'return_to' })]));
          return;
        }
        expect(started.status).toBe(200);
        accepted += 1;
        // The provider answers an error at once: the callback sends the browser to return_to, as after a login.
        const state = new URL(body.authorization_url!).searchParams.get('state')!;
        const callback = await fetch(`${base}/v1/sso/callback?state=${state}&error=access_denied`, {
          headers: { cookie: started.headers.getSetCookie()[0].split(';')[0] },
          redirect: 'manual',
        });
        expect(callback.status).toBe(303);
        const location = callback.headers.get('location')!;
        expect(location).toBe(`${returnTo}#sso_error=error_invalid_credentials`);
        expect([base, APP_ORIGIN]).toContain(new URL(location, `${base}/v1/sso/callback`).origin);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    console.log(`return_to property: ${accepted} of ${RUNS} accepted, each landing on this service or ${APP_ORIGIN}`);
    expect(accepted).toBeGreaterThan(RUNS / 50);
  }, 300_000);
});
