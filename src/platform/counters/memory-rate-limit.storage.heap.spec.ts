import { ManualClock } from '../../../test/support/manual-clock';
import { measureHeapForDistinctKeys } from '../../../bench/lib/storage-benchmark';
import { DEFAULT_MAX_ENTRIES, MemoryRateLimitStorage } from './memory-rate-limit.storage';

/**
 * The `heap` project (jest.config.js): a million keys keep a core busy for seconds and the collector with it, so
 * `npm test` runs this beside the lints, never beside the tests that hold production's Redis and database
 * deadlines (a CI run once saw a quota test's Redis checks fail while this ran in the other worker).
 */
describe('MemoryRateLimitStorage at size', () => {
  it('holds its cap under 1 000 000 distinct keys, within 200 MB of heap', async () => {
    const storage = new MemoryRateLimitStorage(new ManualClock('2025-01-01T00:00:00Z'));
    const heap = await measureHeapForDistinctKeys(storage, 1_000_000);
    console.log(
      `memory storage after 1 000 000 distinct keys (cap ${DEFAULT_MAX_ENTRIES}): ${storage.size} counters, ` +
        `heap used ${heap.heapUsedMb} MB (+${heap.heapGrowthMb} MB), exact gc: ${heap.exactGc}`,
    );
    expect(storage.size).toBe(DEFAULT_MAX_ENTRIES);
    expect(storage.evictions).toBe(1_000_000 - DEFAULT_MAX_ENTRIES);
    // The growth, not the whole heap: a jest worker may also hold what earlier test files in it loaded.
    expect(heap.heapGrowthMb).toBeLessThan(200);
  }, 30_000);
});
