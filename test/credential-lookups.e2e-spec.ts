import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Response } from 'supertest';
import { ApiKeyStrategy } from '../src/identity/api-keys/api-key.strategy';
import type { LookUpResult } from '../src/identity/auth/credentials/credential-strategy';
import { JwtStrategy } from '../src/identity/sessions/jwt.strategy';
import { QueryCounter } from '../src/platform/database/query-counter';
import { type Account, createAccount, createCompanies, login, type LoginBody } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * What credential look-ups cost in database queries (QueryCounter, the `db_queries_total` of /metrics): one
 * shared look-up per new credential (the credential's row, then its owner's card: two statements), none for a
 * request the rate limit refuses, at most a full `-` bucket of look-ups for a flood of invented credentials (one
 * statement each: an unknown credential has no owner to read), and no stale "valid" after a revocation has been
 * answered.
 */
describe('credential look-ups', () => {
  let t: TestApp;
  let clock: ManualClock;
  let company: { id: number };
  let owner: Account;
  let ips = 0;
  const freshIp = () => `198.18.${Math.floor(++ips / 250)}.${(ips % 250) + 1}`;

  const me = (authorization: string, ip: string) =>
    t.http().get('/v1/users/me').set('x-forwarded-for', ip).set('authorization', authorization);

  const loginAs = async (account: Account): Promise<LoginBody> => {
    const res = await t
      .http()
      .post('/v1/users/authenticatefinish')
      .set('x-forwarded-for', freshIp())
      .send({ email: account.email, password: account.password, company_id: company.id });
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
    return res.body as LoginBody;
  };

  const newApiKey = async (jwt: string): Promise<{ id: string; api_key: string }> => {
    const res = await t
      .http()
      .post('/v1/apikeys')
      .set('x-forwarded-for', freshIp())
      .set('authorization', jwt)
      .send({ name: `k${randomBytes(3).toString('hex')}`, permissions: ['users:read'] });
    if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${res.text}`);
    return res.body as { id: string; api_key: string };
  };

  /** Lets in-flight work (last-used writes, notices) settle, then counts the queries `work` sends. */
  const queriesOf = async (work: () => Promise<unknown>): Promise<number> => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const before = QueryCounter.total;
    await work();
    await new Promise((resolve) => setTimeout(resolve, 50));
    return QueryCounter.total - before;
  };

  beforeAll(async () => {
    clock = new ManualClock('2026-11-21T03:00:00Z');
    t = await startTestApp({ clock, env: { RATE_LIMIT_SCALE: '1', TRUST_PROXY: '127.0.0.1' } });
    [company] = await createCompanies(t, 'Lookups');
    owner = await createAccount(t, [company.id], ['*']);
    // Starting an app on the embedded database takes long on a loaded machine.
  }, 180_000);
  afterAll(() => t?.close());

  describe('single flight', () => {
    it('50 concurrent first requests with one new JWT share one look-up', async () => {
      const session = await loginAs(owner);
      let answers: Response[] = [];
      // From 50 addresses, so the rate limit (30 GETs per counter) stays out of the way.
      const queries = await queriesOf(async () => {
        answers = await Promise.all(Array.from({ length: 50 }, () => me(session.jwt, freshIp())));
      });
      expect(answers.map((res) => res.status)).toEqual(Array(50).fill(200));
      // One look-up (two statements: the token's own row, then its owner's card from the accounts area), plus the
      // session's last-used write (at most one per minute).
      expect(queries).toBe(3);
    });

    it('50 concurrent first requests with one new API key share one look-up', async () => {
      const key = await newApiKey((await loginAs(owner)).jwt);
      let answers: Response[] = [];
      const queries = await queriesOf(async () => {
        answers = await Promise.all(Array.from({ length: 50 }, () => me(key.api_key, freshIp())));
      });
      expect(answers.map((res) => res.status)).toEqual(Array(50).fill(200));
      expect(queries).toBe(3);
    });
  });

  describe('the rate limit never pays for a look-up it refuses', () => {
    it('a limited request with a known credential costs no query', async () => {
      const session = await loginAs(owner);
      const ip = freshIp();
      for (let i = 0; i < 30; i++) await me(session.jwt, ip).expect(200);
      let statuses: number[] = [];
      const queries = await queriesOf(async () => {
        statuses = (await Promise.all(Array.from({ length: 40 }, () => me(session.jwt, ip)))).map((r) => r.status);
      });
      expect(statuses).toEqual(Array(40).fill(429));
      expect(queries).toBe(0);
    });

    it('a flood of made-up API keys from one client costs at most a full `-` bucket of look-ups, its 429s none', async () => {
      const madeUp = () => `ak_${randomBytes(9).toString('base64url')}:${randomBytes(24).toString('base64url')}`;
      for (let window = 0; window < 3; window++) {
        const ip = freshIp();
        let statuses: number[] = [];
        const queries = await queriesOf(async () => {
          for (let i = 0; i < 120; i++) statuses.push((await me(madeUp(), ip)).status);
        });
        // The "-" GET bucket holds 30 (the clock stands still): those 30 are looked up (401), the other 90 are not.
        expect({ window, queries, refused: statuses.filter((s) => s === 401).length }).toEqual({
          window,
          queries: 30,
          refused: 30,
        });
        expect(statuses.filter((s) => s === 429)).toHaveLength(90);
        const moreQueries = await queriesOf(async () => {
          statuses = (await Promise.all(Array.from({ length: 40 }, () => me(madeUp(), ip)))).map((r) => r.status);
        });
        expect({ moreQueries, statuses }).toEqual({ moreQueries: 0, statuses: Array(40).fill(429) });
        clock.advance(3000);
      }
    });

    it('a flood of made-up JWTs (bad signatures, forged payloads) costs no query at all', async () => {
      const real = await loginAs(owner);
      const [header, payload] = real.jwt.split('.');
      const inventions = [
        () => randomBytes(30).toString('base64url'),
        () => `${header}.${payload}.${randomBytes(32).toString('base64url')}`,
        () => `${header}.${Buffer.from(JSON.stringify({ sub: '1', cid: 1 })).toString('base64url')}.x`,
      ];
      const ip = freshIp();
      const statuses: number[] = [];
      const queries = await queriesOf(async () => {
        for (let i = 0; i < 90; i++) statuses.push((await me(inventions[i % 3](), ip)).status);
      });
      expect(queries).toBe(0);
      expect(statuses.filter((s) => s === 401)).toHaveLength(30);
      expect(statuses.filter((s) => s === 429)).toHaveLength(60);
      // The client's real, new token is neither charged to nor refused by its exhausted "-" counter.
      await me(real.jwt, ip).expect(200);
    });
  });

  describe('a revocation holds from the moment it is answered', () => {
    /**
     * Fires requests with `credential` one event-loop turn apart while `revoke` runs, and a burst right after it
     * answers; every request that started after the answer must be refused as blacklisted.
     */
    async function race(credential: string, revoke: () => Promise<Response>, expectedStatus: number) {
      let answered = false;
      const after: Array<Promise<Response>> = [];
      const before: Array<Promise<Response>> = [];
      const revocation = revoke().then((res) => {
        answered = true;
        for (let i = 0; i < 20; i++) after.push(me(credential, freshIp()).then((r) => r));
        return res;
      });
      for (let i = 0; i < 20 && !answered; i++) {
        before.push(me(credential, freshIp()).then((r) => r));
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect((await revocation).status).toBe(expectedStatus);
      const late = await Promise.all(after);
      expect(late.map((res) => [res.status, res.body.error?.[0]])).toEqual(
        Array(20).fill([400, 'error_jwt_blacklisted']),
      );
      // Those that started before may go either way, but never with anything other than 200 or the refusal.
      for (const res of await Promise.all(before)) expect([200, 400]).toContain(res.status);
      await me(credential, freshIp()).expect(400);
    }

    it('API key revoked while ~40 requests with it are in flight (10 rounds)', async () => {
      const manager = await loginAs(owner);
      for (let round = 0; round < 10; round++) {
        const key = await newApiKey(manager.jwt);
        await race(
          key.api_key,
          () =>
            t
              .http()
              .delete(`/v1/apikeys/${key.id}`)
              .set('x-forwarded-for', freshIp())
              .set('authorization', manager.jwt),
          204,
        );
      }
    });

    it('session revoked while requests with its token are in flight (10 rounds)', async () => {
      const other = await loginAs(owner);
      for (let round = 0; round < 10; round++) {
        const victim = await loginAs(owner);
        await race(
          victim.jwt,
          () =>
            t
              .http()
              .delete(`/v1/users/sessions/${victim.session_id}`)
              .set('x-forwarded-for', freshIp())
              .set('authorization', other.jwt),
          204,
        );
      }
    });

    it('logout while requests with the token are in flight (10 rounds)', async () => {
      for (let round = 0; round < 10; round++) {
        const victim = await loginAs(owner);
        await race(
          victim.jwt,
          () => t.http().post('/v1/users/logout').set('x-forwarded-for', freshIp()).set('authorization', victim.jwt),
          204,
        );
      }
    });
  });
});

/**
 * The same race made certain: a look-up that read "valid" before the revocation committed is held until the
 * revocation has been answered. Without the epoch check it would then fill the cache with that stale "valid",
 * and requests arriving after the answer would join it or read it.
 */
describe('a look-up that read "valid" before a revocation is not trusted after it', () => {
  const gate = { hold: undefined as Promise<void> | undefined, reached: undefined as (() => void) | undefined };

  async function heldAfterReading<T>(read: Promise<T>): Promise<T> {
    const hold = gate.hold;
    const result = await read;
    if (hold) {
      gate.reached?.();
      await hold;
    }
    return result;
  }

  @Injectable()
  class HeldApiKeyStrategy extends ApiKeyStrategy {
    override lookUp(header: string): Promise<LookUpResult> {
      return heldAfterReading(super.lookUp(header));
    }
  }

  @Injectable()
  class HeldJwtStrategy extends JwtStrategy {
    override lookUp(header: string, hash: string): Promise<LookUpResult> {
      return heldAfterReading(super.lookUp(header, hash));
    }
  }

  let t: TestApp;
  let company: { id: number };
  let owner: Account;

  beforeAll(async () => {
    t = await startTestApp({
      configure: (builder) =>
        builder
          .overrideProvider(ApiKeyStrategy)
          .useClass(HeldApiKeyStrategy)
          .overrideProvider(JwtStrategy)
          .useClass(HeldJwtStrategy),
    });
    [company] = await createCompanies(t, 'Held');
    owner = await createAccount(t, [company.id], ['*']);
    // Starting an app on the embedded database takes long on a loaded machine.
  }, 180_000);
  afterAll(() => t?.close());

  const me = (authorization: string) => t.http().get('/v1/users/me').set('authorization', authorization);

  async function raceHeld(credential: string, revoke: () => Promise<Response>) {
    let release!: () => void;
    gate.hold = new Promise<void>((resolve) => (release = resolve));
    const reached = new Promise<void>((resolve) => (gate.reached = resolve));
    const before = Array.from({ length: 20 }, () => me(credential).then((res) => res));
    await reached;
    gate.hold = undefined;
    expect((await revoke()).status).toBe(204);
    // Arrive while the stale look-up is still held: they must not join it.
    const joining = Array.from({ length: 10 }, () => me(credential).then((res) => res));
    // Long enough for them to reach the credential check (and join the held look-up, were that allowed).
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    const joined = await Promise.all(joining);
    // Started before the revocation was answered: accepted, as when the look-up had simply been faster.
    expect((await Promise.all(before)).map((res) => res.status)).toEqual(Array(20).fill(200));
    // Started after: refused, whether they came while the stale look-up was held or after it finished.
    const after = await Promise.all(Array.from({ length: 10 }, () => me(credential)));
    for (const res of [...joined, ...after])
      expect([res.status, res.body.error?.[0]]).toEqual([400, 'error_jwt_blacklisted']);
  }

  it('API key revoke (5 rounds)', async () => {
    const manager = (await login(t, owner, company.id)).jwt;
    await me(manager).expect(200);
    for (let round = 0; round < 5; round++) {
      const key = await t
        .http()
        .post('/v1/apikeys')
        .set('authorization', manager)
        .send({ name: `held ${round}`, permissions: ['users:read'] })
        .expect(201);
      await raceHeld(key.body.api_key, () =>
        t.http().delete(`/v1/apikeys/${key.body.id}`).set('authorization', manager),
      );
    }
  });

  it('session revoke (5 rounds)', async () => {
    const other = (await login(t, owner, company.id)).jwt;
    await me(other).expect(200);
    for (let round = 0; round < 5; round++) {
      const victim = await login(t, owner, company.id);
      await raceHeld(victim.jwt, () =>
        t.http().delete(`/v1/users/sessions/${victim.session_id}`).set('authorization', other),
      );
    }
  });
});
