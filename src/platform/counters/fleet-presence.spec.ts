import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import Redis from 'ioredis';
import { CircuitBreaker } from './circuit-breaker';
import { FleetPresence, HEARTBEAT_TTL_MS } from './fleet-presence';
import { redisOptions } from '../redis-client/redis-client.module';

// A throw-away server of this file's own: the test kills it, which the shared one must not suffer.
const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';
const silent = { warn: () => undefined, info: () => undefined };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

describe('FleetPresence', () => {
  let server: ChildProcess;
  let port: number;
  const clients: Redis[] = [];
  const presences: FleetPresence[] = [];

  async function presence(key = 'fleet-test:instances', intervalMs?: number): Promise<FleetPresence> {
    const redis = new Redis({ ...redisOptions(), host: '127.0.0.1', port, lazyConnect: true });
    redis.on('error', () => undefined);
    clients.push(redis);
    await redis.connect();
    const fleet = new FleetPresence(redis, new CircuitBreaker(silent), key, silent, intervalMs);
    presences.push(fleet);
    fleet.start();
    return fleet;
  }

  async function startServer(): Promise<void> {
    server = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    const ready = new Redis({ host: '127.0.0.1', port, retryStrategy: () => 20 });
    ready.on('error', () => undefined);
    await ready.ping();
    ready.disconnect();
  }

  async function untilReady(redis: Redis): Promise<void> {
    for (let waited = 0; redis.status !== 'ready'; waited += 20) {
      if (waited > 5000) throw new Error('the client did not reconnect within 5 s');
      await sleep(20);
    }
  }

  beforeAll(async () => {
    port = await freePort();
    await startServer();
  });

  afterAll(async () => {
    for (const fleet of presences) await fleet.stop();
    for (const redis of clients) redis.disconnect();
    server.kill('SIGKILL');
  });

  it('counts the live instances, forgets one that leaves, and keeps the last count while Redis is away', async () => {
    const [a, b, c] = [await presence(), await presence(), await presence()];
    for (const fleet of [a, b, c]) await fleet.beat();
    expect([a.size, b.size, c.size]).toEqual([3, 3, 3]);

    await c.stop(); // leaves at once
    expect(await a.beat()).toBe(2);

    // An instance that stops beating without leaving (a crash) drops out once its entry expires.
    (b as unknown as { running: boolean }).running = false;
    await sleep(HEARTBEAT_TTL_MS + 100);
    expect(await a.beat()).toBe(1);
    (b as unknown as { running: boolean }).running = true;
    expect(await b.beat()).toBe(2);
    expect(await a.beat()).toBe(2);

    server.kill('SIGKILL');
    await once(server, 'exit');
    await sleep(50);
    expect(await a.beat()).toBe(2);
    expect(a.size).toBe(2);
  }, 15_000);

  it('does not lower the count on the first answer after Redis was away: the others need one interval to return', async () => {
    await startServer();
    // Beats only when the test (or a reconnection) asks: the one-second timer would race the assertions.
    const [a, b] = [await presence('fleet-test:recovery', 60_000), await presence('fleet-test:recovery', 60_000)];
    expect([await a.beat(), await b.beat(), await a.beat()]).toEqual([2, 2, 2]);

    server.kill('SIGKILL');
    await once(server, 'exit');
    (b as unknown as { running: boolean }).running = false; // b crashes during the outage
    await sleep(50);
    expect(await a.beat()).toBe(2); // Redis away: the last count holds

    await startServer(); // empty: every announcement was lost with the killed server
    await untilReady(clients[clients.length - 2]);
    await sleep(200); // a's reconnection beat: it finds itself alone in the new set
    const probe = new Redis({ host: '127.0.0.1', port });
    try {
      expect(await probe.zcard('fleet-test:recovery')).toBe(1);
    } finally {
      probe.disconnect();
    }
    expect(a.size).toBe(2); // ...and does not believe it yet
    expect(await a.beat()).toBe(1); // the second answer agrees: b really is gone
  }, 15_000);
});
