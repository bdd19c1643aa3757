/**
 * The seed of a test's random inputs: `FUZZ_SEED` replays a run; otherwise a new one each run, so that runs
 * explore. Either way the test prints it (and names it in its title), so that a red run can be replayed.
 */
export function runSeed(): number {
  const raw = process.env.FUZZ_SEED;
  if (raw === undefined || raw === '') return Date.now() % 2 ** 31;
  const seed = Number(raw);
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`FUZZ_SEED must be a non-negative integer, got "${raw}"`);
  return seed;
}

/** A pseudo-random generator in [0, 1) that gives the same sequence for the same seed (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
