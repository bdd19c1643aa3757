import type { DataSource } from 'typeorm';
import { ManualClock } from '../../../test/support/manual-clock';
import type { AppLogger } from '../../platform/common/logging/logger';
import type { RevocationBus, RevocationNotice } from '../../platform/revocation/revocation-bus';
import { RateLimitOverrides } from './rate-limit-overrides';
import type { RateLimitOverride } from './rate-limit-override.entity';

const row = (capacity: number): RateLimitOverride => ({
  id: 1,
  companyId: 7,
  apiKeyId: null,
  method: '*',
  group: '*',
  capacity,
  mode: 'enforce',
  expiresAt: null,
  createdAt: new Date(),
});

/** The rows the next load returns, or an error for a database that does not answer. */
function setUp() {
  const state: { next: RateLimitOverride[] | Error; loads: number } = { next: [], loads: 0 };
  const builder = {
    where: () => builder,
    getMany: async () => {
      state.loads++;
      if (state.next instanceof Error) throw state.next;
      return state.next;
    },
  };
  const dataSource = {
    manager: { getRepository: () => ({ createQueryBuilder: () => builder }) },
  } as unknown as DataSource;
  const listeners: Array<(notice: RevocationNotice) => void> = [];
  const bus = {
    onNotice: (listener: (notice: RevocationNotice) => void) => listeners.push(listener),
  } as unknown as RevocationBus;
  const warnings: unknown[] = [];
  const logger = { warn: (fields: unknown) => warnings.push(fields) } as unknown as AppLogger;
  const overrides = new RateLimitOverrides(dataSource, new ManualClock(), bus, logger);
  const notify = (notice: RevocationNotice) => listeners.forEach((listener) => listener(notice));
  return { overrides, state, notify, warnings };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('RateLimitOverrides', () => {
  afterEach(() => jest.useRealTimers());

  it('loads at start and again on an "overrides changed" notice only', async () => {
    const { overrides, state, notify } = setUp();
    state.next = [row(5)];
    await overrides.onModuleInit();
    expect(overrides.lookup(7, null, 'GET', 'users')?.limit).toBe(5);
    state.next = [row(9)];
    notify({ type: 'session', sessionId: 's' });
    await flush();
    expect(overrides.lookup(7, null, 'GET', 'users')?.limit).toBe(5);
    notify({ type: 'rate_limit_overrides' });
    await flush();
    expect(overrides.lookup(7, null, 'GET', 'users')?.limit).toBe(9);
    overrides.onApplicationShutdown();
  });

  it('keeps the overrides in memory while the database does not answer, and says so', async () => {
    const { overrides, state, notify, warnings } = setUp();
    state.next = [row(5)];
    await overrides.onModuleInit();
    state.next = new Error('Connection terminated');
    notify({ type: 'rate_limit_overrides' });
    await flush();
    expect(overrides.lookup(7, null, 'GET', 'users')?.limit).toBe(5);
    expect(warnings).toEqual([{ reason: 'Connection terminated' }]);
    overrides.onApplicationShutdown();
  });

  it('loads again every 30 s without a notice (a lost one, or a database away at start)', async () => {
    jest.useFakeTimers();
    const { overrides, state } = setUp();
    state.next = new Error('down');
    await overrides.onModuleInit();
    expect(overrides.any).toBe(false);
    state.next = [row(3)];
    await jest.advanceTimersByTimeAsync(30_000);
    expect(state.loads).toBe(2);
    expect(overrides.lookup(7, null, 'GET', 'users')?.limit).toBe(3);
    overrides.onApplicationShutdown();
  });
});
