/**
 * Micro-benchmark of the rate-limit storages. Runs the compiled code, so build first:
 *   npm run build && node bench/rate-limit-storage.bench.js
 * REDIS_URL (default redis://127.0.0.1:6379) picks the server; its keys go under a unique prefix, removed at the end.
 * BENCH_DIST points at another build output (e.g. `tsc -p tsconfig.build.json --outDir /tmp/out`), default ./dist.
 */
'use strict';
const { randomBytes } = require('node:crypto');
const Redis = require('ioredis');

const { resolve } = require('node:path');

const distRoot = resolve(__dirname, '..', process.env.BENCH_DIST || 'dist');
const dist = (path) => require(`${distRoot}/src/${path}`);
const { SystemClock } = dist('platform/common/clock/clock');
const { redisOptions } = dist('platform/redis-client/redis-client.module');
const { MemoryRateLimitStorage } = dist('platform/counters/memory-rate-limit.storage');
const { RedisRateLimitStorage } = dist('platform/counters/redis-rate-limit.storage');
const { ResilientRateLimitStorage } = dist('platform/counters/resilient-rate-limit.storage');
const { benchmarkKey, benchmarkStorage, measureHeapForDistinctKeys } = require('./lib/storage-benchmark');
const { FixedWindowMemoryStorage } = require('./lib/fixed-window-storage');
const { measureCapQuotaCost, capQuotaReport } = require('./lib/cap-quota-cost');

const silent = { warn: () => undefined, info: () => undefined };
const row = (label, result) =>
  console.log(
    `${label.padEnd(44)} ${String(result.checksPerSecond).padStart(10)} checks/s  (${result.calls} in ${result.ms.toFixed(0)} ms)`,
  );

// First, while the heap holds nothing else; in a function so the full storage is garbage before the timings.
async function heapAfterDistinctKeys() {
  const capped = new MemoryRateLimitStorage(new SystemClock());
  const heap = await measureHeapForDistinctKeys(capped, 1_000_000);
  console.log(
    `memory, 1 000 000 distinct keys, cap ${capped.maxEntries}: ${capped.size} counters held, ` +
      `heap used ${heap.heapUsedMb} MB (+${heap.heapGrowthMb} MB)${heap.exactGc ? '' : ' (no gc: includes garbage)'}`,
  );
}

/**
 * The leaky bucket against the fixed window it replaced, as the guard calls them (incrementNow, synchronous,
 * 1 000 hot keys at the service's GET limit scaled out of the way), interleaved over rounds so drift touches
 * both alike: ns per decision, medians of the rounds, and the difference in µs per request.
 */
function bucketAgainstFixedWindow() {
  const clock = new SystemClock();
  const keys = Array.from({ length: 1000 }, (_, i) => benchmarkKey(i));
  const time = (storage, n) => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < n; i++) storage.incrementNow(keys[i % 1000], 3000, 30_000_000, 0);
    return Number(process.hrtime.bigint() - started) / n;
  };
  const bucket = new MemoryRateLimitStorage(clock);
  const window = new FixedWindowMemoryStorage(clock);
  time(bucket, 1_000_000);
  time(window, 1_000_000);
  const samples = { bucket: [], window: [] };
  for (let round = 0; round < 7; round++) {
    samples.window.push(time(window, 1_000_000));
    samples.bucket.push(time(bucket, 1_000_000));
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const [b, w] = [median(samples.bucket), median(samples.window)];
  console.log(
    `decision cost, incrementNow, 1 000 hot keys (median of 7 × 1 000 000): leaky bucket ${b.toFixed(0)} ns, ` +
      `fixed window ${w.toFixed(0)} ns, difference ${((b - w) / 1000).toFixed(3)} µs per request`,
  );
}

async function main() {
  await heapAfterDistinctKeys();
  bucketAgainstFixedWindow();
  console.log(capQuotaReport(await measureCapQuotaCost(dist)));

  const memory = () => new MemoryRateLimitStorage(new SystemClock());
  await benchmarkStorage(memory(), 500_000); // warm-up: let the JIT settle before timing
  row('memory, 1 000 hot keys', await benchmarkStorage(memory(), 3_000_000, { keys: 1000 }));
  row(
    'memory, 1 000 000 distinct keys (no eviction)',
    await benchmarkStorage(memory(), 1_000_000, { keys: 1_000_000 }),
  );
  const full = new MemoryRateLimitStorage(new SystemClock(), { maxEntries: 100_000 });
  await benchmarkStorage(full, 100_000, { keys: 100_000 });
  row('memory, distinct keys, cap full (evicting)', await benchmarkStorage(full, 1_000_000, { keys: 1_000_000 }));

  const redis = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379', { ...redisOptions(), lazyConnect: true });
  redis.on('error', () => undefined);
  await redis.connect();
  const prefix = `rl-bench:${randomBytes(4).toString('hex')}:`;
  try {
    const shared = new RedisRateLimitStorage(redis, { keyPrefix: prefix, timeoutMs: 1000 });
    await benchmarkStorage(shared, 5_000);
    row('redis, 1 in flight', await benchmarkStorage(shared, 20_000, { keys: 1000 }));
    row('redis, 64 in flight', await benchmarkStorage(shared, 200_000, { keys: 1000, concurrency: 64 }));
    const resilient = new ResilientRateLimitStorage(shared, memory(), silent);
    row('resilient(redis), 64 in flight', await benchmarkStorage(resilient, 200_000, { keys: 1000, concurrency: 64 }));
  } finally {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    await redis.quit();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
