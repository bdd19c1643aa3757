import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import Redis from 'ioredis';
import { ManualClock } from '../../test/support/manual-clock';
import { SystemClock } from '../common/clock/clock';
import { redisOptions } from '../redis-client/redis-client.module';
import { MemoryRateLimitStorage } from './memory-rate-limit.storage';
import { RateLimitLogger } from './rate-limit-storage';
import { RateLimitTimeoutError, RedisRateLimitStorage } from './redis-rate-limit.storage';
import { ResilientRateLimitStorage } from './resilient-rate-limit.storage';

// A throw-away server per file: these tests kill, freeze and restart it, which the shared one must not suffer.
const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';
const DEADLINE_MS = 100;
// Event-loop and scheduling noise a measured call may add on top of its deadline on a busy 2-core machine.
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

class CapturingLogger implements RateLimitLogger {
  readonly lines: { level: 'warn' | 'info'; obj: Record<string, unknown>; msg?: string }[] = [];
  warn(obj: object, msg?: string): void {
    this.lines.push({ level: 'warn', obj: obj as Record<string, unknown>, msg });
  }
  info(obj: object, msg?: string): void {
    this.lines.push({ level: 'info', obj: obj as Record<string, unknown>, msg });
  }
  events(): unknown[] {
    return this.lines.map((line) => line.obj.event);
  }
}

const silent: RateLimitLogger = { warn: () => undefined, info: () => undefined };

function resilient(redis: Redis, logger: RateLimitLogger, prefix: string): ResilientRateLimitStorage {
  return new ResilientRateLimitStorage(
    new RedisRateLimitStorage(redis, { keyPrefix: prefix, timeoutMs: DEADLINE_MS }),
    new MemoryRateLimitStorage(new SystemClock()),
    logger,
    { failureThreshold: 3, coolDownMs: 300 },
  );
}

/** Calls `check` every `everyMs` until `done()` or `boundMs`, returning each call's latency. */
async function keepChecking(check: () => Promise<unknown>, done: () => boolean, everyMs: number, boundMs: number) {
  const latencies: number[] = [];
  const until = performance.now() + boundMs;
  while (!done() && performance.now() < until) {
    const started = performance.now();
    await check();
    latencies.push(performance.now() - started);
    await sleep(everyMs);
  }
  return latencies;
}

describe('ResilientRateLimitStorage against a failing Redis', () => {
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    await startRedis(port);
  }, 10_000);

  afterAll(async () => {
    for (const redis of clients) redis.disconnect();
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
    console.log(`redis down: ${latencies.length} checks, worst ${worst.toFixed(1)} ms, fallbacks ${a.fallbackCount}`);
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
      const started = performance.now();
      await expect(direct.increment('direct', 60_000, 5, 0, 'default')).rejects.toBeInstanceOf(RateLimitTimeoutError);
      expect(performance.now() - started).toBeLessThan(DEADLINE_MS + LATENCY_SLACK_MS);

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

describe('ResilientRateLimitStorage breaker', () => {
  /** A primary whose health the test switches; stands for any storage, not for Redis. */
  class SwitchablePrimary extends MemoryRateLimitStorage {
    healthy = true;
    calls = 0;
    override increment(key: string, ttl: number, limit: number, block: number, name: string) {
      this.calls++;
      return this.healthy ? super.increment(key, ttl, limit, block, name) : Promise.reject(new Error('down'));
    }
  }

  it('opens after the threshold, sends one trial per cool-down, and closes on its success', async () => {
    let now = 0;
    const primary = new SwitchablePrimary(new SystemClock());
    const log = new CapturingLogger();
    const storage = new ResilientRateLimitStorage(primary, new MemoryRateLimitStorage(new SystemClock()), log, {
      failureThreshold: 3,
      coolDownMs: 1000,
      now: () => now,
    });
    const hit = () => storage.increment('k', 60_000, 100, 0, 'default');

    primary.healthy = false;
    for (let i = 0; i < 2; i++) await hit();
    expect(storage.state).toBe('closed');
    await hit();
    expect(storage.state).toBe('open');
    for (let i = 0; i < 10; i++) await hit();
    expect(primary.calls).toBe(3);
    expect(storage.fallbackCount).toBe(13);

    now = 1000;
    await hit(); // the trial, failing: open for another cool-down, no new log line
    expect(primary.calls).toBe(4);
    expect(storage.state).toBe('open');
    now = 1500;
    await hit();
    expect(primary.calls).toBe(4);

    primary.healthy = true;
    now = 2000;
    // Concurrent checks while the trial is out go to the fallback, not to the primary.
    await Promise.all([hit(), hit(), hit()]);
    expect(primary.calls).toBe(5);
    expect(storage.state).toBe('closed');
    await hit();
    expect(primary.calls).toBe(6);
    expect(storage.fallbackCount).toBe(17);
    expect(log.events()).toEqual(['rate_limit_breaker_open', 'rate_limit_breaker_closed']);
  });

  it('counts only consecutive failures', async () => {
    const primary = new SwitchablePrimary(new SystemClock());
    const storage = new ResilientRateLimitStorage(primary, new MemoryRateLimitStorage(new SystemClock()), silent);
    for (let round = 0; round < 5; round++) {
      primary.healthy = false;
      await storage.increment('k', 60_000, 100, 0, 'default');
      await storage.increment('k', 60_000, 100, 0, 'default');
      primary.healthy = true;
      await storage.increment('k', 60_000, 100, 0, 'default');
    }
    expect(storage.state).toBe('closed');
  });
});

describe('ResilientRateLimitStorage while Redis is away', () => {
  /** A primary that fails every call, resets included, as a Redis that is down or too slow does. */
  class FailingPrimary extends MemoryRateLimitStorage {
    error: Error = new Error('down');
    override increment(): never {
      throw this.error;
    }
    override peek(): never {
      throw this.error;
    }
    override reset(): never {
      throw this.error;
    }
    override hitWindow(): never {
      throw this.error;
    }
    override peekWindow(): never {
      throw this.error;
    }
  }

  it('clears the key without failing when Redis cannot (a login must not answer 500)', async () => {
    for (const error of [new Error('Connection is closed.'), new RateLimitTimeoutError(75)]) {
      const primary = new FailingPrimary(new SystemClock());
      const memory = new MemoryRateLimitStorage(new SystemClock());
      const storage = new ResilientRateLimitStorage(primary, memory, silent);
      primary.error = error;
      await storage.increment('k', 60_000, 10, 0, 'default');
      await expect(storage.reset('k')).resolves.toBeUndefined();
      expect((await memory.peek('k', 60_000, 10)).totalHits).toBe(0);
    }
  });

  it('gives each instance a bucket of ceil(limit / N) draining at 1/N of the rate, and says so in the record', async () => {
    let fleet = 2;
    const clock = new ManualClock('2026-11-24T12:00:00Z');
    const storage = new ResilientRateLimitStorage(
      new FailingPrimary(new SystemClock()),
      new MemoryRateLimitStorage(clock),
      silent,
      { fleetSize: () => fleet },
    );
    const answers = [];
    for (let i = 0; i < 16; i++) answers.push(await storage.increment('k', 3000, 30, 0, 'default'));
    expect(answers.map((record) => record.limit)).toEqual(Array(16).fill(15));
    expect(answers.slice(0, 15).every((record) => !record.isBlocked)).toBe(true);
    expect(answers[15].isBlocked).toBe(true);
    expect(await storage.peek('k', 3000, 30)).toMatchObject({ limit: 15, totalHits: 15 });
    // The fleet drains 10 GET/s; this instance 5/s, one every 200 ms.
    clock.advance(199);
    expect((await storage.increment('k', 3000, 30, 0, 'default')).isBlocked).toBe(true);
    clock.advance(1);
    expect((await storage.increment('k', 3000, 30, 0, 'default')).isBlocked).toBe(false);
    expect((await storage.increment('k', 3000, 30, 0, 'default')).isBlocked).toBe(true);
    // Half the capacity at half the rate: still empty 3 s after it was last full.
    clock.advance(2999);
    expect((await storage.peek('k', 3000, 30)).totalHits).toBe(1);
    clock.advance(1);
    expect((await storage.peek('k', 3000, 30)).totalHits).toBe(0);

    fleet = 3;
    expect((await storage.increment('odd', 3000, 10, 0, 'default')).limit).toBe(4);
    fleet = 0; // never below one instance, never a limit of 0
    expect((await storage.increment('one', 3000, 1, 0, 'default')).limit).toBe(1);
  });

  it('applies the share to the login lock windows too', async () => {
    const storage = new ResilientRateLimitStorage(
      new FailingPrimary(new SystemClock()),
      new MemoryRateLimitStorage(new SystemClock()),
      silent,
      { fleetSize: () => 2 },
    );
    expect(await storage.hitWindow('login', 60_000, 10)).toMatchObject({ hits: 1, limit: 5 });
    expect(await storage.peekWindow('login', 60_000, 10)).toMatchObject({ hits: 1, limit: 5 });
  });
});
