import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import {
  type Answer,
  call,
  createFleetAccount,
  type FleetAccount,
  freshIp,
  logIn,
  sleep,
  startFleet,
} from './support/fleet';
import { killChildren, requireBuild, type RunningService, startService, CHILD_TEST_ENV } from './support/processes';
import { ed25519KeyFiles } from './support/signing-keys';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SECRET = 'move-test-secret-that-is-at-least-32-bytes';

const algOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString()).alg as string;

/**
 * docs/operations.md "Moving from HS256 to EdDSA" on a running fleet of two built instances (PostgreSQL + Redis): two rolling
 * restarts, one instance at a time, while a client keeps calling both with every token it has been given
 * (the HS256 one from before the move, and the ones each instance issues during it). Not one request refused.
 */
describe('HS256 → EdDSA on a running two-instance fleet', () => {
  let database: ProvisionedDatabase;
  let account: FleetAccount;
  const live: RunningService[] = [];
  const answers: Array<{ phase: string; path: string; alg: string; status: number; body: unknown }> = [];
  const tokens: string[] = [];
  let phase = 'HS256';
  let stopped = false;

  const base = () => ({
    ...CHILD_TEST_ENV,
    JWT_SECRET: SECRET,
    LOG_LEVEL: 'info',
    PORT: '0',
    HOST: '127.0.0.1',
    RATE_LIMIT_SCALE: '1',
    TRUST_PROXY: '127.0.0.1',
    ...database.env,
    REDIS_URL,
  });

  beforeAll(async () => {
    requireBuild();
    database = await provisionDatabase();
  });
  afterAll(async () => {
    stopped = true;
    await killChildren();
    await database?.drop();
  });

  const record = (path: string, token: string, answer: Answer) =>
    answers.push({ phase, path, alg: algOf(token), status: answer.status, body: answer.body });

  /** Every token on a live instance, round and round; a fresh login now and then, on whichever instance is up. */
  async function client(worker: number): Promise<void> {
    for (let i = 0; !stopped; i++) {
      const instance = live[(i + worker) % live.length];
      if (!instance) {
        await sleep(5);
        continue;
      }
      if (i % 25 === 0) {
        const login = await logIn(instance.url, account);
        record('login', 'e30.e30.', login);
        if (login.status === 200) tokens.push((login.body as { jwt: string }).jwt);
        continue;
      }
      const token = tokens[i % tokens.length];
      record(
        '/v1/users/me',
        token,
        await call(instance.url, 'GET', '/v1/users/me', { credential: token, ip: freshIp() }),
      );
    }
  }

  /** Takes each instance out of the client's rotation, stops it, starts it on the new configuration, puts it back. */
  async function rollingRestart(env: Record<string, string>): Promise<void> {
    for (let index = 0; index < live.length; index++) {
      const [old] = live.splice(index, 1);
      // Its requests in flight finish (graceful stop); the client no longer sends it new ones.
      await old.stop('SIGTERM', 30_000);
      const fresh = await startService({ ...base(), ...env });
      live.splice(index, 0, fresh);
      // A token the fresh instance issues now, used by the clients from here on, and at once on every instance
      // (those not restarted yet included): whatever the clients' pace on a busy machine, each configuration
      // meets the new instance's tokens.
      const login = await logIn(fresh.url, account);
      record('login', 'e30.e30.', login);
      if (login.status === 200) {
        const token = (login.body as { jwt: string }).jwt;
        tokens.push(token);
        for (const instance of live) {
          record(
            '/v1/users/me',
            token,
            await call(instance.url, 'GET', '/v1/users/me', { credential: token, ip: freshIp() }),
          );
        }
      }
      await sleep(1500);
    }
  }

  it('two rolling restarts: the new key accepted everywhere, then signing with it; every request answered 200', async () => {
    const next = ed25519KeyFiles();
    // Today's fleet: JWT_SECRET alone signs HS256.
    live.push(...(await startFleet(2, { ...base(), JWT_PRIVATE_KEY_FILE: '' })));
    account = await createFleetAccount(database.url!);
    const first = await logIn(live[0].url, account);
    const before = (first.body as { jwt: string }).jwt;
    expect(algOf(before)).toBe('HS256');
    tokens.push(before);
    const clients = [0, 1, 2].map((worker) => client(worker));
    await sleep(1000);

    phase = 'accept the new key';
    await rollingRestart({ JWT_PRIVATE_KEY_FILE: '', JWT_PUBLIC_KEY_FILES: next.publicFile });
    phase = 'sign with the new key';
    await rollingRestart({ JWT_PRIVATE_KEY_FILE: next.privateFile });
    phase = 'after';
    // The newest token (EdDSA, from the last restarted instance) and the first one (HS256) on every instance.
    for (const instance of live) {
      for (const token of [tokens.at(-1)!, before]) {
        record(
          '/v1/users/me',
          token,
          await call(instance.url, 'GET', '/v1/users/me', { credential: token, ip: freshIp() }),
        );
      }
    }
    await sleep(1000);
    stopped = true;
    await Promise.all(clients);

    const refused = answers.filter((answer) => answer.status !== 200);
    expect(refused).toEqual([]);
    const seen = (alg: string, which: string) =>
      answers.filter((answer) => answer.alg === alg && answer.phase === which && answer.path !== 'login').length;
    // The old token worked all along, and EdDSA tokens were used on both configurations of the second restart.
    for (const which of ['HS256', 'accept the new key', 'sign with the new key', 'after']) {
      expect({ which, count: seen('HS256', which) > 0 }).toEqual({ which, count: true });
    }
    expect(seen('EdDSA', 'sign with the new key')).toBeGreaterThan(0);
    expect(seen('EdDSA', 'after')).toBeGreaterThan(0);
    expect(algOf(tokens.at(-1)!)).toBe('EdDSA');

    // Both instances publish the key, and still take the token from before the move.
    for (const instance of live) {
      const jwks = await call(instance.url, 'GET', '/.well-known/jwks.json');
      expect((jwks.body as { keys: unknown[] }).keys).toHaveLength(1);
      const me = await call(instance.url, 'GET', '/v1/users/me', { credential: before, ip: freshIp() });
      expect(me.status).toBe(200);
    }
  }, 120_000);
});
