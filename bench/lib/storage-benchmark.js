'use strict';
/**
 * Timing and heap helpers for the rate-limit storages: used by `bench/rate-limit-storage.bench.js` and by the
 * memory storage's unit test (its 1 M-key heap bound). Plain JavaScript so the benchmark needs no build of its
 * own; types in `storage-benchmark.d.ts`.
 */
const { setFlagsFromString } = require('node:v8');
const { runInNewContext } = require('node:vm');

/** A key shaped like the guard's (`ip|METHOD|controller|token hash`), so lengths and heap use are realistic. */
function benchmarkKey(i) {
  return `10.${(i >>> 16) & 255}.${(i >>> 8) & 255}.${i & 255}|GET|products|9f86d081884c7d65`;
}

/** Times `n` increments, each awaited as the guard does. */
async function benchmarkStorage(storage, n, options = {}) {
  const keyCount = options.keys ?? 1000;
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const ttl = options.ttlMs ?? 3000;
  const limit = options.limit ?? 1_000_000_000;
  // Built up front: the point is the storage's cost, not string concatenation's.
  const keys = Array.from({ length: keyCount }, (_, i) => benchmarkKey(i));
  let issued = 0;
  const worker = async () => {
    while (issued < n) {
      const i = issued++;
      await storage.increment(keys[i % keyCount], ttl, limit, 0, 'default');
    }
  };
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  return { calls: n, ms, checksPerSecond: Math.round((n / ms) * 1000) };
}

/**
 * A full garbage collection, exposing `gc` at run time when node was not started with `--expose-gc`.
 * Returns false when that is impossible, and heap figures then include garbage.
 */
function collectGarbage() {
  let gc = globalThis.gc;
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc');
    } catch {
      return false;
    }
  }
  if (typeof gc !== 'function') return false;
  gc();
  return true;
}

/** Heap in use after `n` distinct keys have each been hit once (all windows still open). */
async function measureHeapForDistinctKeys(storage, n) {
  const exactGc = collectGarbage();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < n; i++) await storage.increment(benchmarkKey(i), 60_000, 100, 0, 'default');
  collectGarbage();
  const after = process.memoryUsage().heapUsed;
  const mb = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10;
  return { keys: n, heapUsedMb: mb(after), heapGrowthMb: mb(after - before), exactGc };
}

module.exports = { benchmarkKey, benchmarkStorage, collectGarbage, measureHeapForDistinctKeys };
