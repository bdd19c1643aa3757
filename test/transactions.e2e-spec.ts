import { DataSource, In } from 'typeorm';
import { Company } from '../src/accounts/company/company.entity';
import { currentTestDatabase } from './support/databases';
import { runSeed, seededRandom } from './support/seed';
import { startTestApp, type TestApp } from './support/test-app';

const ROUNDS = 36;
/** The order of the rounds' steps is random, from this seed: FUZZ_SEED=<seed> replays a run. */
const SEED = runSeed();
const random = seededRandom(SEED);

class IntendedRollback extends Error {}

/** A promise with its resolver, for letting one transaction wait on a step of the other. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}

/** Gives the event loop back 0–3 times, so the two transactions' statements are issued in a random order. */
async function jitter(): Promise<void> {
  for (let turns = Math.floor(random() * 4); turns > 0; turns--) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Waits for `step` of the other transaction, or a few milliseconds when it cannot come (a serialized session). */
function awaitOther(step: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const fallback = new Promise<void>((resolve) => (timer = setTimeout(resolve, 2 + random() * 8)));
  return Promise.race([step, fallback]).finally(() => clearTimeout(timer));
}

describe(`transactions under concurrency (${currentTestDatabase()}, seed ${SEED})`, () => {
  let t: TestApp;
  let dataSource: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    dataSource = t.app.get(DataSource);
  });
  afterAll(() => t?.close());

  it('keeps exactly the committed row when an interleaved transaction rolls back', async () => {
    console.log(`transactions: seed ${SEED} (replay with FUZZ_SEED=${SEED})`);
    let overlapped = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const names = { rollback: `rolled back ${round}`, commit: `committed ${round}` };
      const inserted = { rollback: signal(), commit: signal() };
      const events: string[] = [];

      const run = (who: 'rollback' | 'commit') =>
        dataSource.transaction(async (manager) => {
          const other = who === 'rollback' ? 'commit' : 'rollback';
          events.push(`${who}:begin`);
          await jitter();
          await manager.insert(Company, { name: names[who] });
          events.push(`${who}:insert`);
          inserted[who].fire();
          // While the other is inside its transaction too, let it insert before this one finishes.
          await awaitOther(inserted[other].promise);
          await jitter();
          events.push(`${who}:end`);
          if (who === 'rollback') throw new IntendedRollback();
        });

      // Either may be asked for first.
      const order: Array<'rollback' | 'commit'> = random() < 0.5 ? ['rollback', 'commit'] : ['commit', 'rollback'];
      const outcomes = await Promise.allSettled(order.map((who) => run(who)));
      const byWho = Object.fromEntries(order.map((who, index) => [who, outcomes[index]]));
      expect(byWho.commit.status).toBe('fulfilled');
      expect(byWho.rollback).toMatchObject({ status: 'rejected', reason: expect.any(IntendedRollback) });

      const rows = await dataSource.getRepository(Company).findBy({ name: In([names.rollback, names.commit]) });
      expect(rows.map((row) => row.name)).toEqual([names.commit]);

      // Both inside their transactions at once: one began before the other ended.
      const firstEnd = events.findIndex((event) => event.endsWith(':end'));
      if (events.slice(0, firstEnd).filter((event) => event.endsWith(':begin')).length === 2) overlapped++;
    }

    if (currentTestDatabase() === 'postgres') {
      // Two real sessions: the rounds above really ran side by side.
      expect(overlapped).toBeGreaterThan(0);
    } else {
      // One PGlite session: the pool hands it to one transaction at a time, so none may overlap.
      expect(overlapped).toBe(0);
    }
    const total = await dataSource.getRepository(Company).countBy({ name: In(rangeOf('committed')) });
    expect(total).toBe(ROUNDS);
    expect(await dataSource.getRepository(Company).countBy({ name: In(rangeOf('rolled back')) })).toBe(0);
  });

  it('completes a plain query asked for while a transaction is open elsewhere, once that one ends', async () => {
    const before = await dataSource.getRepository(Company).count();
    const opened = signal();
    const finish = signal();
    const order: string[] = [];
    const transaction = dataSource.transaction(async (manager) => {
      await manager.insert(Company, { name: 'held open' });
      opened.fire();
      await finish.promise;
      order.push('transaction');
    });
    await opened.promise;

    const plain = dataSource.query('SELECT count(*)::int AS n FROM company').then((rows: Array<{ n: number }>) => {
      order.push('query');
      return rows[0].n;
    });
    // Long enough for a query that does not have to wait to finish; short of the embedded checkout timeout.
    await new Promise((resolve) => setTimeout(resolve, 150));
    finish.fire();

    const started = performance.now();
    await transaction;
    const seen = await plain;
    expect(performance.now() - started).toBeLessThan(1000);

    const committed = await dataSource.getRepository(Company).countBy({ name: 'held open' });
    expect(committed).toBe(1);
    if (currentTestDatabase() === 'embedded') {
      // The one session was leased to the transaction: the query waited for it, then saw its row.
      expect(order).toEqual(['transaction', 'query']);
      expect(seen).toBe(before + 1);
    } else {
      // A connection of its own: the query neither waited nor saw the uncommitted row.
      expect(order).toEqual(['query', 'transaction']);
      expect(seen).toBe(before);
    }
  });
});

function rangeOf(prefix: string): string[] {
  return Array.from({ length: ROUNDS }, (_, round) => `${prefix} ${round}`);
}
