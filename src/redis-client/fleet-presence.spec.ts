import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import Redis from 'ioredis';
import { CircuitBreaker } from './circuit-breaker';
import { FleetPresence, HEARTBEAT_TTL_MS } from './fleet-presence';
import { redisOptions } from './redis-client.module';

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

  async function presence(): Promise<FleetPresence> {
    const redis = new Redis({ ...redisOptions(), host: '127.0.0.1', port, lazyConnect: true });
    redis.on('error', () => undefined);
    clients.push(redis);
    await redis.connect();
    const fleet = new FleetPresence(redis, new CircuitBreaker(silent), 'fleet-test:instances', silent);
    presences.push(fleet);
    fleet.start();
    return fleet;
  }

  beforeAll(async () => {
    port = await freePort();
    server = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    const ready = new Redis({ host: '127.0.0.1', port, retryStrategy: () => 20 });
    ready.on('error', () => undefined);
    await ready.ping();
    ready.disconnect();
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
});
