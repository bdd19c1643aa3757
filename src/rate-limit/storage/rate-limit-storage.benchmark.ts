import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { RateLimitStorage } from './rate-limit-storage';

export interface BenchmarkResult {
  calls: number;
  ms: number;
  checksPerSecond: number;
}

export interface BenchmarkOptions {
  /** Distinct keys the calls cycle through; a small set models hot counters. */
  keys?: number;
  /** Calls in flight at once; 1 measures latency-bound throughput, more measures what pipelining buys. */
  concurrency?: number;
  ttlMs?: number;
  limit?: number;
}

/** A key shaped like the guard's (`ip|METHOD|controller|token hash`), so lengths and heap use are realistic. */
export function benchmarkKey(i: number): string {
  return `10.${(i >>> 16) & 255}.${(i >>> 8) & 255}.${i & 255}|GET|products|9f86d081884c7d65`;
}

/** Times `n` increments, each awaited as the guard does. */
export async function benchmarkStorage(
  storage: RateLimitStorage,
  n: number,
  options: BenchmarkOptions = {},
): Promise<BenchmarkResult> {
  const keyCount = options.keys ?? 1000;
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const ttl = options.ttlMs ?? 3000;
  const limit = options.limit ?? 1_000_000_000;
  // Built up front: the point is the storage's cost, not string concatenation's.
  const keys = Array.from({ length: keyCount }, (_, i) => benchmarkKey(i));
  let issued = 0;
  const worker = async (): Promise<void> => {
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
export function collectGarbage(): boolean {
  let gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as (() => void) | undefined;
    } catch {
      return false;
    }
  }
  if (typeof gc !== 'function') return false;
  gc();
  return true;
}

export interface HeapResult {
  keys: number;
  heapUsedMb: number;
  heapGrowthMb: number;
  exactGc: boolean;
}

/** Heap in use after `n` distinct keys have each been hit once (all windows still open). */
export async function measureHeapForDistinctKeys(storage: RateLimitStorage, n: number): Promise<HeapResult> {
  const exactGc = collectGarbage();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < n; i++) await storage.increment(benchmarkKey(i), 60_000, 100, 0, 'default');
  collectGarbage();
  const after = process.memoryUsage().heapUsed;
  const mb = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;
  return { keys: n, heapUsedMb: mb(after), heapGrowthMb: mb(after - before), exactGc };
}
