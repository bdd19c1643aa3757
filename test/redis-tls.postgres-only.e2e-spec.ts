import { createServer, type Server, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import Redis from 'ioredis';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { call, freshIp, sleep, startFleet } from './support/fleet';
import { killChildren, logRecords, requireBuild, type RunningService } from './support/processes';
import { RedisServer, freePort } from './support/redis-server';
import { TestCertificates, TlsRedisServer } from './support/tls-redis';

// Several built instances on one machine shared with other suites.
jest.setTimeout(120_000);

interface Indicator {
  status: string;
  message?: string;
  reason?: string;
}

async function readiness(service: RunningService): Promise<{ status: string; redis: Indicator }> {
  const answer = await call(service.url, 'GET', '/health');
  expect(answer.status).toBe(200);
  const body = answer.body as { status: string; details: { redis: Indicator } };
  return { status: body.status, redis: body.details.redis };
}

/** The instance's "Redis connection failed" lines so far. */
function failures(service: RunningService): Array<Record<string, unknown>> {
  return logRecords(service.child.stdout).filter((record) => record.event === 'redis_connection_failed');
}

/** Waits until /health reports Redis down for `reason` (the connection's first failure may take a retry). */
async function downFor(service: RunningService, reason: string): Promise<Indicator> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { status, redis } = await readiness(service);
    if (redis.reason === reason || Date.now() > deadline) {
      expect({ status, reason: redis.reason }).toEqual({ status: 'degraded', reason });
      return redis;
    }
    await sleep(200);
  }
}

/**
 * `rediss://` against Debian's redis-server in TLS mode with a private CA made by openssl, and every way the
 * connection can fail named for what it is, in /health and in one log line per outage.
 */
describe('Redis over TLS, and Redis connection failures named in the log and /health', () => {
  let certificates: TestCertificates;
  let database: ProvisionedDatabase;
  const servers: Array<{ kill(): Promise<void> }> = [];
  let silent: Server | undefined;
  const held: Socket[] = [];

  beforeAll(async () => {
    requireBuild();
    certificates = TestCertificates.make();
    database = await provisionDatabase('postgres');
  });

  afterAll(async () => {
    await killChildren();
    for (const server of servers) await server.kill();
    for (const socket of held) socket.destroy();
    silent?.close();
    certificates?.remove();
    await database?.drop();
  });

  it('works with REDIS_TLS_CA_FILE naming the CA that signed the server certificate', async () => {
    const redis = await TlsRedisServer.start(certificates);
    servers.push(redis);
    const [service] = await startFleet(
      1,
      { ...database.env, REDIS_URL: redis.url(), REDIS_TLS_CA_FILE: certificates.file('ca.pem') },
      { awaitFleet: false },
    );
    expect(await readiness(service)).toEqual({ status: 'ok', redis: { status: 'up' } });
    // The counters are really in that Redis.
    await call(service.url, 'GET', '/v1/products', { ip: freshIp() });
    const admin = new Redis(redis.url(), { tls: { ca: readFileSync(certificates.file('ca.pem')) } });
    try {
      expect((await admin.keys(`${database.env.REDIS_KEY_PREFIX}rl:*`)).length).toBeGreaterThan(0);
    } finally {
      admin.disconnect();
    }
    expect(failures(service)).toEqual([]);
  });

  it('names a certificate the CA file does not trust, a refused password and a handshake that never ends', async () => {
    const tls = await TlsRedisServer.start(certificates, ['--requirepass', 'the-right-password']);
    servers.push(tls);
    silent = createServer((socket) => held.push(socket)); // accepts, never answers: no TLS handshake
    const silentPort = await freePort();
    await new Promise<void>((done) => silent!.listen(silentPort, '127.0.0.1', done));
    const ca = certificates.file('ca.pem');
    const [untrusted, wrongPassword, hanging] = await startFleet(
      3,
      { ...database.env },
      {
        awaitFleet: false,
        perInstance: (index) =>
          [
            { REDIS_URL: tls.url(':the-right-password@'), REDIS_TLS_CA_FILE: certificates.file('other-ca.pem') },
            { REDIS_URL: tls.url(':a-wrong-password@'), REDIS_TLS_CA_FILE: ca },
            { REDIS_URL: `rediss://127.0.0.1:${silentPort}`, REDIS_TLS_CA_FILE: ca },
          ][index],
      },
    );

    const refused = await downFor(untrusted, 'certificate_not_trusted');
    expect(refused.message).toMatch(/TLS certificate was refused .*REDIS_TLS_CA_FILE/);
    expect((await downFor(wrongPassword, 'authentication_failed')).message).toMatch(/credentials/);
    expect((await downFor(hanging, 'timed_out')).message).toMatch(/did not answer in time/);

    // Reconnects keep failing the same way (every few hundred ms): still one line per instance.
    await sleep(3000);
    for (const [service, reason] of [
      [untrusted, 'certificate_not_trusted'],
      [wrongPassword, 'authentication_failed'],
      [hanging, 'timed_out'],
    ] as const) {
      expect(failures(service).map((record) => record.reason)).toEqual([reason]);
      expect(JSON.stringify(failures(service))).not.toContain('"stack"');
    }
    // Without a stack, and the password never in a line.
    expect(wrongPassword.child.stdout).not.toContain('the-right-password');
    expect(wrongPassword.child.stdout).not.toContain('a-wrong-password');
  });

  it('says "refused" once per outage, and that the connection is ready again in between', async () => {
    const redis = await RedisServer.start();
    servers.push(redis);
    const [service] = await startFleet(1, { ...database.env, REDIS_URL: redis.url }, { awaitFleet: false });
    expect((await readiness(service)).redis).toEqual({ status: 'up' });

    for (let outage = 1; outage <= 2; outage++) {
      await redis.kill();
      expect((await downFor(service, 'refused')).message).toMatch(/refused the connection/);
      await sleep(2500); // several reconnect attempts
      expect(failures(service).map((record) => record.reason)).toEqual(Array(outage).fill('refused'));
      await redis.restart();
      const deadline = Date.now() + 10_000;
      while ((await readiness(service)).status !== 'ok' && Date.now() < deadline) await sleep(200);
      expect(await readiness(service)).toEqual({ status: 'ok', redis: { status: 'up' } });
    }
    const ready = logRecords(service.child.stdout).filter((record) => record.event === 'redis_connection_ready');
    expect(ready).toHaveLength(2);
  });
});
