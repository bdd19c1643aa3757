import { tokenExpiresAt, toVietnamIso } from './token-lifetime';

describe('tokenExpiresAt', () => {
  it('ends at 23:59:59 Vietnam time on the 14th day after the day of issue', () => {
    // 2026-11-21 10:00 in Vietnam.
    const issued = new Date('2026-11-21T03:00:00Z');
    const expires = tokenExpiresAt(issued, issued);
    expect(toVietnamIso(expires)).toBe('2026-12-05T23:59:59+07:00');
    expect(expires.toISOString()).toBe('2026-12-05T16:59:59.000Z');
  });

  it('counts from the Vietnam calendar day when the UTC date is the day before (login 00:00-07:00 Vietnam)', () => {
    // 2026-11-21 05:30 in Vietnam is still 2026-11-20 in UTC.
    const issued = new Date('2026-11-20T22:30:00Z');
    expect(toVietnamIso(tokenExpiresAt(issued, issued))).toBe('2026-12-05T23:59:59+07:00');
  });

  it('treats 23:59:59 Vietnam time as the last second of that day, not the next', () => {
    const issued = new Date('2026-11-21T16:59:59Z'); // 23:59:59 Vietnam on the 21st
    expect(toVietnamIso(tokenExpiresAt(issued, issued))).toBe('2026-12-05T23:59:59+07:00');
    const nextDay = new Date('2026-11-21T17:00:00Z'); // 00:00:00 Vietnam on the 22nd
    expect(toVietnamIso(tokenExpiresAt(nextDay, nextDay))).toBe('2026-12-06T23:59:59+07:00');
  });

  it('never outlives the session: login + 30 days caps a late refresh', () => {
    const login = new Date('2026-11-01T03:00:00Z');
    const refreshedOnDay25 = new Date('2026-11-26T03:00:00Z');
    expect(tokenExpiresAt(refreshedOnDay25, login).toISOString()).toBe('2026-12-01T03:00:00.000Z');
  });

  it("a company's session_days shortens it: 1 ends at 23:59:59 Vietnam time the day after", () => {
    const issued = new Date('2026-11-21T03:00:00Z');
    expect(toVietnamIso(tokenExpiresAt(issued, issued, 1))).toBe('2026-11-22T23:59:59+07:00');
    expect(toVietnamIso(tokenExpiresAt(issued, issued, 7))).toBe('2026-11-28T23:59:59+07:00');
    // Never longer than the source's 14 days, whatever is asked.
    expect(toVietnamIso(tokenExpiresAt(issued, issued, 30))).toBe('2026-12-05T23:59:59+07:00');
  });
});
