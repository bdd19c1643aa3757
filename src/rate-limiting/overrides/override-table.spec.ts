import { ManualClock } from '../../../test/support/manual-clock';
import { type OverrideRule, OverrideTable } from './override-table';
import { ShadowLog } from './shadow-log';

const KEY = '6f1c1a52-0d5e-4a43-9f0a-2d1e2c3b4a59';
let nextId = 1;
const rule = (overrides: Partial<OverrideRule>): OverrideRule => ({
  id: nextId++,
  companyId: 1,
  apiKeyId: null,
  method: '*',
  group: '*',
  limit: 5,
  mode: 'enforce',
  expiresAtMs: null,
  ...overrides,
});

describe('OverrideTable', () => {
  const now = Date.parse('2026-06-01T00:00:00Z');

  it('applies to the company it names only', () => {
    const table = new OverrideTable([rule({ limit: 7 })]);
    expect(table.lookup(1, null, 'GET', 'products', now)?.limit).toBe(7);
    expect(table.lookup(2, null, 'GET', 'products', now)).toBeUndefined();
  });

  it("prefers an API key's override to its company's, and leaves the company's to the other keys", () => {
    const table = new OverrideTable([rule({ limit: 7 }), rule({ apiKeyId: KEY, limit: 3 })]);
    expect(table.lookup(1, KEY, 'GET', 'products', now)?.limit).toBe(3);
    expect(table.lookup(1, 'another-key', 'GET', 'products', now)?.limit).toBe(7);
    expect(table.lookup(1, null, 'GET', 'products', now)?.limit).toBe(7);
  });

  it('prefers an exact method to *, then an exact group to *', () => {
    const table = new OverrideTable([
      rule({ limit: 1 }),
      rule({ group: 'products', limit: 2 }),
      rule({ method: 'GET', limit: 3 }),
      rule({ method: 'GET', group: 'products', limit: 4 }),
    ]);
    expect(table.lookup(1, null, 'GET', 'products', now)?.limit).toBe(4);
    expect(table.lookup(1, null, 'GET', 'orders', now)?.limit).toBe(3);
    expect(table.lookup(1, null, 'POST', 'products', now)?.limit).toBe(2);
    expect(table.lookup(1, null, 'POST', 'orders', now)?.limit).toBe(1);
  });

  it('never matches another method or group', () => {
    const table = new OverrideTable([rule({ method: 'DELETE', group: 'users' })]);
    expect(table.lookup(1, null, 'GET', 'users', now)).toBeUndefined();
    expect(table.lookup(1, null, 'DELETE', 'products', now)).toBeUndefined();
  });

  it('skips an override from its expiry on, by the clock it is asked with, and falls back on the next one', () => {
    const clock = new ManualClock('2026-06-01T00:00:00Z');
    const table = new OverrideTable([
      rule({ limit: 9 }),
      rule({ apiKeyId: KEY, limit: 2, expiresAtMs: clock.nowMs() + 60_000 }),
    ]);
    expect(table.lookup(1, KEY, 'GET', 'products', clock.nowMs())?.limit).toBe(2);
    clock.advance(59_999);
    expect(table.lookup(1, KEY, 'GET', 'products', clock.nowMs())?.limit).toBe(2);
    clock.advance(1);
    expect(table.lookup(1, KEY, 'GET', 'products', clock.nowMs())?.limit).toBe(9);
  });
});

describe('ShadowLog', () => {
  it('says to log an identifier once per minute', () => {
    const clock = new ManualClock('2026-06-01T00:00:00Z');
    const log = new ShadowLog(clock);
    expect(log.due('a')).toBe(true);
    expect(log.due('a')).toBe(false);
    expect(log.due('b')).toBe(true);
    clock.advance(59_999);
    expect(log.due('a')).toBe(false);
    clock.advance(1);
    expect(log.due('a')).toBe(true);
  });
});
