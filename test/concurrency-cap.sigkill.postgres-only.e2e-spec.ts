import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import Redis from 'ioredis';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { call, createFleetAccount, logIn, type Session, sleep, startFleet } from './support/fleet';
import { killChildren, requireBuild, type RunningService } from './support/processes';

// docs/contract.md, "Beyond the bucket": a crashed instance's leases lapse (within 30 s; here within the
// documented CONCURRENCY_LEASE_MS, set to 2 s so the file does not wait 30). Two built instances on the shared
// Redis; one holds 20 requests of a credential in flight (image fetches from a loopback server that never
// answers) and is SIGKILLed, so nothing of it returns its leases.
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const LEASE_MS = 2000;

describe('the leases of an instance killed with SIGKILL', () => {
  let database: ProvisionedDatabase;
  let a: RunningService;
  let b: RunningService;
  let jwt: string;
  let redis: Redis;
  let hanging: Server;
  const held = new Set<Socket>();

  beforeAll(async () => {
    requireBuild();
    hanging = createServer(() => undefined);
    hanging.on('connection', (socket) => held.add(socket));
    hanging.listen(0, '127.0.0.1');
    await once(hanging, 'listening');
    database = await provisionDatabase('postgres');
    [a, b] = await startFleet(2, {
      ...database.env,
      REDIS_URL,
      CONCURRENCY_LIMIT: '20',
      CONCURRENCY_LEASE_MS: String(LEASE_MS),
      FILES_FETCH_ALLOWLIST: '127.0.0.1',
      FILES_FETCH_TIMEOUT_MS: '60000',
    });
    const account = await createFleetAccount(database.url!);
    jwt = ((await logIn(a.url, account)).body as Session).jwt;
    redis = new Redis(REDIS_URL);
  }, 90_000);

  afterAll(async () => {
    await killChildren();
    for (const socket of held) socket.destroy();
    hanging?.close();
    await redis?.quit();
    await database?.drop();
  });

  it('count until they lapse, then the credential gets its 20 again, on the surviving instance', async () => {
    const port = (hanging.address() as { port: number }).port;
    const fetches = Array.from({ length: 25 }, () =>
      call(a.url, 'POST', '/v1/files/addimagefromurl', {
        credential: jwt,
        ip: '198.51.100.9',
        body: { url: `http://127.0.0.1:${port}/image.png` },
        timeoutMs: 60_000,
      }),
    );
    const refused: string[] = [];
    for (const fetched of fetches)
      void fetched.then((res) => res.status === 429 && refused.push(res.headers.get('x-rate-limit-identifier')!));
    for (let tries = 0; refused.length < 5 && tries < 200; tries++) await sleep(25);
    expect(refused).toHaveLength(5);
    const key = `${database.env.REDIS_KEY_PREFIX}rl:cc:${refused[0].split('|')[3]}`;
    for (let tries = 0; (await redis.zcard(key)) < 20 && tries < 200; tries++) await sleep(25);
    expect(await redis.zcard(key)).toBe(20);

    await a.stop('SIGKILL');
    const killedAt = performance.now();
    // Nothing returned them: the other instance still counts the dead one's 20 (while they last).
    const leftAtKill = await redis.zcard(key);
    const pttl = await redis.pttl(key);
    const first = await call(b.url, 'GET', '/v1/users/me', { credential: jwt, ip: '198.51.100.10' });
    const firstMs = performance.now() - killedAt;
    let admittedAfterMs = 0;
    for (let res = first; res.status === 429;) {
      await sleep(50);
      res = await call(b.url, 'GET', '/v1/users/me', { credential: jwt, ip: '198.51.100.10' });
      admittedAfterMs = performance.now() - killedAt;
    }
    // Redis's own expiry removes the set (the surviving request above holds a member only while it runs).
    for (let tries = 0; (await redis.exists(key)) === 1 && tries < 100; tries++) await sleep(50);
    const goneAfterMs = performance.now() - killedAt;
    console.log(
      `SIGKILL with 20 leases held (lease ${LEASE_MS} ms): ${leftAtKill} left at the kill (PTTL ${pttl} ms), ` +
        `the other instance answered ${first.status} ${Math.round(firstMs)} ms after it, admitted the ` +
        `credential again ${Math.round(admittedAfterMs)} ms after it, the lease set gone ${Math.round(goneAfterMs)} ms after it`,
    );
    expect(leftAtKill).toBe(20);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(LEASE_MS);
    if (firstMs < LEASE_MS - 500) expect(first.status).toBe(429);
    expect(admittedAfterMs).toBeLessThan(LEASE_MS + 2000);
    expect(await redis.exists(key)).toBe(0);
    // And the fleet's full 20 are the credential's again.
    const again = await Promise.all(
      Array.from({ length: 20 }, () => call(b.url, 'GET', '/v1/users/me', { credential: jwt, ip: '198.51.100.11' })),
    );
    expect(again.map((res) => res.status)).toEqual(Array(20).fill(200));
    await Promise.all(fetches);
  });
});
