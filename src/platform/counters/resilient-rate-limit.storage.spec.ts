import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import Redis from 'ioredis';
import { CapturingLogger } from '../../../test/support/capturing-rate-limit-logger';
import { ProcessTimer } from '../../../test/support/process-timer';
import { SystemClock } from '../common/clock/clock';
import { redisOptions } from '../redis-client/redis-client.module';
import { MemoryRateLimitStorage } from './memory-rate-limit.storage';
import { RateLimitLogger } from './rate-limit-storage';
import { RateLimitTimeoutError, RedisRateLimitStorage } from './redis-rate-limit.storage';
import { ResilientRateLimitStorage } from './resilient-rate-limit.storage';

// A throw-away server per file: these tests kill, freeze and restart it, which the shared one must not suffer.
const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';
const DEADLINE_MS = 100;
// Timer and scheduling noise a measured call may add on top of its deadline.
const LATENCY_SLACK_MS = 60;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

const servers = new Set<ChildProcess>();

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    REDIS_SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  servers.add(child);
  child.once('exit', () => servers.delete(child));
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start on ${port}: ${output}`)), 5000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}) on ${port}: ${output}`));
    });
  });
  await ready;
  return child;
}

async function killRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 5000)))]);
  clearTimeout(timer);
}

const clients: Redis[] = [];

/** Production options, but reconnecting every 50 ms so that recovery is quick to observe. */
async function client(port: number): Promise<Redis> {
  const redis = new Redis({ ...redisOptions(), host: '127.0.0.1', port, retryStrategy: () => 50, lazyConnect: true });
  redis.on('error', () => undefined);
  clients.push(redis);
  // Without an offline queue, commands sent before the connection is ready fail at once.
  await redis.connect();
  return redis;
}

function resilient(redis: Redis, logger: RateLimitLogger, prefix: string): ResilientRateLimitStorage {
  return new ResilientRateLimitStorage(
    new RedisRateLimitStorage(redis, { keyPrefix: prefix, timeoutMs: DEADLINE_MS }),
    new MemoryRateLimitStorage(new SystemClock()),
    logger,
    { failureThreshold: 3, coolDownMs: 300 },
  );
}

/** Calls `check` every `everyMs` until `done()` or `boundMs`, returning each call's latency in process time. */
async function keepChecking(check: () => Promise<unknown>, done: () => boolean, everyMs: number, boundMs: number) {
  const timer = new ProcessTimer();
  const latencies: number[] = [];
  const until = performance.now() + boundMs;
  try {
    while (!done() && performance.now() < until) {
      latencies.push(await timer.time(check));
      await sleep(everyMs);
    }
  } finally {
    timer.stop();
  }
  return latencies;
}

describe('ResilientRateLimitStorage against a failing Redis', () => {
  let port: number;

  // A server per test: a test that fails with the server killed or frozen leaves the next one a fresh server.
  beforeEach(async () => {
    port = await freePort();
    await startRedis(port);
  }, 10_000);

  afterEach(async () => {
    for (const redis of clients.splice(0)) redis.disconnect();
    for (const server of servers) server.kill('SIGCONT');
    await Promise.all([...servers].map(killRedis));
  }, 10_000);

  it('fails open within the deadline when Redis dies, logs once, and shares counters again after a restart', async () => {
    const [redisA, redisB] = await Promise.all([client(port), client(port)]);
    const [logA, logB] = [new CapturingLogger(), new CapturingLogger()];
    const a = resilient(redisA, logA, 'rl-crash:');
    const b = resilient(redisB, logB, 'rl-crash:');

    expect((await a.increment('before', 60_000, 100, 0, 'default')).totalHits).toBe(1);
    expect((await b.increment('before', 60_000, 100, 0, 'default')).totalHits).toBe(2);

    await killRedis([...servers][0]);
    // Long enough for several cool-downs, so failed trials are part of what must not log again.
    const latencies = await keepChecking(
      () => a.increment('during', 60_000, 5, 0, 'default'),
      () => false,
      20,
      1200,
    );
    const worst = Math.max(...latencies);
    console.log(
      `redis down: ${latencies.length} checks, worst ${worst.toFixed(1)} ms, fallbacks ${a.fallbackCount}`,
      latencies.map((ms) => ms.toFixed(1)).join(' '),
    );
    expect(worst).toBeLessThan(DEADLINE_MS + LATENCY_SLACK_MS);
    expect(a.fallbackCount).toBe(latencies.length);
    expect(a.state).not.toBe('closed');
    expect(logA.events()).toEqual(['rate_limit_breaker_open']);
    expect(logA.lines[0].level).toBe('warn');
    // Still limited, per instance, while Redis is away.
    expect(latencies.length).toBeGreaterThan(5);
    expect(await a.peek('during', 60_000, 5)).toMatchObject({ totalHits: 5, isBlocked: true });

    await startRedis(port);
    const closed = () => a.state === 'closed' && b.state === 'closed';
    await keepChecking(() => Promise.all([a.peek('x', 1000, 1), b.peek('x', 1000, 1)]), closed, 50, 10_000);
    expect(a.state).toBe('closed');
    expect(b.state).toBe('closed');
    expect(logA.events()).toEqual(['rate_limit_breaker_open', 'rate_limit_breaker_closed']);
    expect(logA.lines[1].level).toBe('info');

    // The restarted server has neither the old counters nor the script; both instances count together again.
    const fallbacks = a.fallbackCount;
    expect((await a.increment('after', 60_000, 100, 0, 'default')).totalHits).toBe(1);
    expect((await b.increment('after', 60_000, 100, 0, 'default')).totalHits).toBe(2);
    expect((await a.increment('after', 60_000, 100, 0, 'default')).totalHits).toBe(3);
    expect(a.fallbackCount).toBe(fallbacks);
  }, 20_000);

  it('answers within the deadline while Redis hangs, and recovers when it resumes', async () => {
    const server = [...servers][0];
    const redis = await client(port);
    const log = new CapturingLogger();
    const storage = resilient(redis, log, 'rl-hang:');
    const direct = new RedisRateLimitStorage(redis, { keyPrefix: 'rl-hang:', timeoutMs: DEADLINE_MS });

    server.kill('SIGSTOP');
    try {
      const timer = new ProcessTimer();
      try {
        const waited = await timer.time(() =>
          expect(direct.increment('direct', 60_000, 5, 0, 'default')).rejects.toBeInstanceOf(RateLimitTimeoutError),
        );
        expect(waited).toBeLessThan(DEADLINE_MS + LATENCY_SLACK_MS);
      } finally {
        timer.stop();
      }

      const latencies = await keepChecking(
        () => storage.increment('hung', 60_000, 5, 0, 'default'),
        () => false,
        10,
        800,
      );
      expect(Math.max(...latencies)).toBeLessThan(DEADLINE_MS + LATENCY_SLACK_MS);
      // Only the calls before the breaker opened waited for their deadline; after that, no waiting at all.
      expect(latencies.filter((ms) => ms >= DEADLINE_MS / 2).length).toBeLessThanOrEqual(3 + 3);
      expect(storage.state).not.toBe('closed');
      expect(log.events()).toEqual(['rate_limit_breaker_open']);
    } finally {
      server.kill('SIGCONT');
    }

    await keepChecking(
      () => storage.peek('hung', 60_000, 5),
      () => storage.state === 'closed',
      50,
      10_000,
    );
    expect(storage.state).toBe('closed');
    expect(log.events()).toEqual(['rate_limit_breaker_open', 'rate_limit_breaker_closed']);
  }, 20_000);

  it('reloads its script when the server has forgotten it', async () => {
    const redis = await client(port);
    const storage = new RedisRateLimitStorage(redis, { keyPrefix: 'rl-script:', timeoutMs: 1000 });
    await storage.increment('k', 60_000, 10, 0, 'default');
    await redis.script('FLUSH');
    expect((await storage.increment('k', 60_000, 10, 0, 'default')).totalHits).toBe(2);
  });
});
