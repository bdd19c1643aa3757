import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { QueryCounter } from '../src/platform/database/query-counter';
import { RateLimitCredentials } from '../src/access/rules/rate-limit-credentials';
import { type Account, createAccount, createCompanies } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';

const tokenHash = (authorization: string) => createHash('sha256').update(authorization).digest('hex').slice(0, 16);

/**
 * The rate limiter's port onto credentials asks memory only: answering it costs no database query, counted at
 * the database (QueryCounter counts every statement the service sends), even when the credential's last use is
 * due to be written. That write belongs to the auth guard, which admits the request.
 */
describe("the rate limiter's credential port", () => {
  let t: TestApp;
  let clock: ManualClock;
  let company: { id: number };
  let owner: Account;
  let port: RateLimitCredentials;

  const asked = (authorization: string) =>
    ({ headers: { authorization }, query: {}, ip: '203.0.113.9', method: 'GET' }) as unknown as FastifyRequest;
  const me = (authorization: string) => t.http().get('/v1/users/me').set('authorization', authorization);

  /** Lets in-flight work (last-used writes) settle, then counts the statements `work` sends. */
  const queriesOf = async (work: () => unknown): Promise<number> => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const before = QueryCounter.total;
    await work();
    await new Promise((resolve) => setTimeout(resolve, 50));
    return QueryCounter.total - before;
  };

  beforeAll(async () => {
    clock = new ManualClock('2026-11-21T03:00:00Z');
    t = await startTestApp({ clock });
    [company] = await createCompanies(t, 'Port');
    owner = await createAccount(t, [company.id], ['*']);
    port = t.app.get(RateLimitCredentials);
  }, 180_000);
  afterAll(() => t?.close());

  const loginJwt = async (): Promise<string> => {
    const res = await t
      .http()
      .post('/v1/users/authenticatefinish')
      .send({ email: owner.email, password: owner.password, company_id: company.id });
    expect(res.status).toBe(200);
    return (res.body as { jwt: string }).jwt;
  };

  it('answers a known credential from memory with no query, also when its last use is due to be written', async () => {
    const jwt = await loginJwt();
    expect((await me(jwt)).status).toBe(200); // looked up; last use written
    clock.advance(31_000);
    expect((await me(jwt)).status).toBe(200); // past the cache's freshness: looked up again; last use not due
    clock.advance(29_500); // the cached answer is still fresh, and a minute has passed since the last write
    const queries = await queriesOf(() => {
      expect(port.knownTokenHash(asked(jwt))).toBe(tokenHash(jwt));
      expect(port.vouchedFor(asked(jwt))).toBe(true);
    });
    expect(queries).toBe(0);
    // The write is not lost: the auth guard records the use of the request it admits, and nothing else is asked.
    expect(await queriesOf(async () => expect((await me(jwt)).status).toBe(200))).toBe(1);
  });

  it('answers "a look-up is needed" for a credential not seen yet, and "none" for a missing one, with no query', async () => {
    const jwt = await loginJwt();
    const queries = await queriesOf(() => {
      expect(port.knownTokenHash(asked(jwt))).toBeUndefined();
      expect(port.knownTokenHash(asked('made-up-key:0123456789abcdef0123456789abcdef'))).toBeUndefined();
      expect(port.vouchedFor(asked('made-up-key:0123456789abcdef0123456789abcdef'))).toBe(false);
      expect(port.knownTokenHash(asked(''))).toBe('-');
    });
    expect(queries).toBe(0);
  });
});
