import { parseList } from '../../../test/support/structured-fields';
import { quotaCounterKey, quotaFields, QuotaTable, type QuotaTaken, windowOf } from './quota-table';
import type { QuotaRule } from './quota-records';

const rule = (over: Partial<QuotaTaken['rule']> = {}): QuotaTaken['rule'] => ({
  id: 1,
  companyId: 7,
  apiKeyId: null,
  per: 'hour',
  limit: 10,
  ...over,
});

describe('quota windows and fields', () => {
  it('aligns windows to the UTC hour and day, whatever the instant within them', () => {
    const at = Date.parse('2030-05-06T10:59:59.999Z');
    expect(windowOf('hour', at)).toEqual({
      start: Date.parse('2030-05-06T10:00:00Z'),
      end: Date.parse('2030-05-06T11:00:00Z'),
    });
    expect(windowOf('hour', Date.parse('2030-05-06T11:00:00Z')).start).toBe(Date.parse('2030-05-06T11:00:00Z'));
    expect(windowOf('day', at)).toEqual({
      start: Date.parse('2030-05-06T00:00:00Z'),
      end: Date.parse('2030-05-07T00:00:00Z'),
    });
  });

  it('names the counter by scope, period and window start, not by the row', () => {
    expect(quotaCounterKey(rule({ id: 99 }), 0)).toBe('quota:7:*:hour:0');
    expect(quotaCounterKey(rule({ apiKeyId: 'k', per: 'day' }), 86_400_000)).toBe('quota:7:k:day:86400000');
  });

  it('writes one RFC 9651 item per period, hour before day, the one with less left when two apply', () => {
    const taken = (over: Partial<QuotaTaken>): QuotaTaken => ({
      rule: rule(),
      hits: 1,
      applied: 10,
      secondsLeft: 60,
      endsAtMs: 0,
      ...over,
    });
    const fields = quotaFields([
      taken({ rule: rule({ per: 'day', limit: 100000 }), hits: 2, applied: 100000, secondsLeft: 86400 }),
      taken({ hits: 3 }),
      taken({ rule: rule({ apiKeyId: 'k', limit: 5 }), hits: 5, applied: 5 }),
      taken({ rule: rule({ limit: 10 }), hits: 12 }),
    ])!;
    expect(fields).toEqual({
      policy: '"hour";q=5;w=3600, "day";q=100000;w=86400',
      state: '"hour";r=0;t=60, "day";r=99998;t=86400',
    });
    // The tests' own strict parser reads both.
    expect(parseList(fields.policy).map((item) => item.value)).toEqual(['hour', 'day']);
    expect(parseList(fields.state)).toHaveLength(2);
    expect(quotaFields([])).toBeUndefined();
  });

  it("applies a company's quotas to all its credentials and a key's only to that key of that company", () => {
    const table = new QuotaTable([
      rule({ id: 1 }),
      rule({ id: 2, apiKeyId: 'k1', per: 'day' }),
      rule({ id: 3, companyId: 8, apiKeyId: 'k2' }),
    ]);
    expect(table.applying(7, null).map((r) => r.id)).toEqual([1]);
    expect(table.applying(7, 'k1').map((r) => r.id)).toEqual([1, 2]);
    expect(table.applying(7, 'k2').map((r) => r.id)).toEqual([1]);
    expect(table.applying(9, null)).toEqual([]);
    expect(table.applying(8, 'k2').map((r) => r.id)).toEqual([3]);
    expect(table.applying(8, null)).toEqual([]);
    expect(table.ofCompany(7).map((r) => r.id)).toEqual([1, 2]);
  });

  it('answers a credential with no quota with one shared list that no caller can change', () => {
    const table = new QuotaTable([rule({ id: 1 })]);
    const none = table.applying(9, null);
    // Asked on every counted request while any quota exists: no new list each time (bench/lib/cap-quota-cost.js).
    expect(table.applying(10, 'k9')).toBe(none);
    expect(() => (none as QuotaRule[]).push(rule({ id: 2 }))).toThrow(TypeError);
    expect(table.applying(9, null)).toEqual([]);
  });
});
