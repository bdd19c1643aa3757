import type { RateLimitStorage } from '../../src/platform/counters/rate-limit-storage';

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

export interface HeapResult {
  keys: number;
  heapUsedMb: number;
  heapGrowthMb: number;
  exactGc: boolean;
}

export function benchmarkKey(i: number): string;
export function benchmarkStorage(
  storage: RateLimitStorage,
  n: number,
  options?: BenchmarkOptions,
): Promise<BenchmarkResult>;
export function collectGarbage(): boolean;
export function measureHeapForDistinctKeys(storage: RateLimitStorage, n: number): Promise<HeapResult>;
