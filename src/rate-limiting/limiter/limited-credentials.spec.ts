import { ManualClock } from '../../../test/support/manual-clock';
import { LIMITED_WINDOW_MS, LimitedCredentials, MAX_LIMITED_ENTRIES } from './limited-credentials';
import type { CredentialOwner } from '../../access/rules/rate-limit-credentials';

const ann: CredentialOwner = {
  kind: 'jwt',
  companyId: 1,
  credentialId: 'jti-1',
  sessionId: 'session-ann',
  employee: { id: 10, email: 'ann@example.com' },
};
const key = (companyId: number, id: string): CredentialOwner => ({
  kind: 'api_key',
  companyId,
  credentialId: id,
  sessionId: null,
  employee: { id: 11, email: 'bob@example.com' },
});

describe('LimitedCredentials', () => {
  let clock: ManualClock;
  let limited: LimitedCredentials;

  beforeEach(() => {
    clock = new ManualClock('2026-11-25T10:00:00Z');
    limited = new LimitedCredentials(clock);
  });

  it("counts a credential's refusals per method × group, a JWT under its session (its tokens change)", () => {
    limited.note(ann, 'GET', 'products', 'limited');
    clock.advance(1000);
    limited.note({ ...ann, credentialId: 'jti-2' }, 'GET', 'products', 'limited');
    limited.note(ann, 'POST', 'products', 'shadow_limited');
    limited.note(key(1, 'key-1'), 'GET', 'orders', 'limited');
    limited.note(key(2, 'key-2'), 'GET', 'orders', 'limited');
    const entries = limited.ofCompany(1);
    expect(entries.map((e) => [e.kind, e.credentialId, e.method, e.group, e.refused, e.shadowLimited])).toEqual([
      ['api_key', 'key-1', 'GET', 'orders', 1, 0],
      ['jwt', 'session-ann', 'POST', 'products', 0, 1],
      ['jwt', 'session-ann', 'GET', 'products', 2, 0],
    ]);
    const get = entries[2];
    expect(get.lastAtMs - get.firstAtMs).toBe(1000);
    expect(limited.ofCompany(2)).toHaveLength(1);
    expect(limited.ofCompany(3)).toEqual([]);
  });

  it('forgets what was last limited more than an hour ago', () => {
    limited.note(ann, 'GET', 'products', 'limited');
    clock.advance(LIMITED_WINDOW_MS - 1);
    limited.note(key(1, 'key-1'), 'GET', 'orders', 'limited');
    expect(limited.ofCompany(1)).toHaveLength(2);
    clock.advance(2);
    expect(limited.ofCompany(1).map((e) => e.credentialId)).toEqual(['key-1']);
    // A refusal again moves an entry back to the newest end: it stays while the other one ages out.
    limited.note(key(1, 'key-1'), 'GET', 'orders', 'limited');
    clock.advance(LIMITED_WINDOW_MS);
    expect(limited.ofCompany(1).map((e) => e.refused)).toEqual([2]);
    clock.advance(1);
    expect(limited.ofCompany(1)).toEqual([]);
    expect(limited.size).toBe(0);
  });

  it('holds at most MAX_LIMITED_ENTRIES, dropping the least recently limited', () => {
    for (let i = 0; i < MAX_LIMITED_ENTRIES + 500; i++) limited.note(key(1, `key-${i}`), 'GET', 'orders', 'limited');
    expect(limited.size).toBe(MAX_LIMITED_ENTRIES);
    const ids = new Set(limited.ofCompany(1).map((e) => e.credentialId));
    expect(ids.has('key-0')).toBe(false);
    expect(ids.has('key-499')).toBe(false);
    expect(ids.has('key-500')).toBe(true);
    expect(ids.has(`key-${MAX_LIMITED_ENTRIES + 499}`)).toBe(true);
  });
});
