/** Asia/Ho_Chi_Minh is UTC+7 all year (no daylight saving), so a fixed offset is exact. */
const VIETNAM_OFFSET_MS = 7 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A token lives until the end of this many Vietnam calendar days after the day it was issued. */
export const TOKEN_LIFETIME_DAYS = 14;
/** A login session, refreshes included, lasts at most this long from login. */
export const SESSION_MAX_AGE_MS = 30 * DAY_MS;

/**
 * When a token issued at `issuedAt` stops being valid: 23:59:59 Vietnam time on the 14th day (or the company's
 * `session_days`, 1–14) after the Vietnam calendar day of issue, and never later than the session's login time
 * plus 30 days. The token is expired from that instant on (valid at 23:59:58, expired at 23:59:59).
 */
export function tokenExpiresAt(issuedAt: Date, loginAt: Date, days: number = TOKEN_LIFETIME_DAYS): Date {
  const vietnamDayStart = Math.floor((issuedAt.getTime() + VIETNAM_OFFSET_MS) / DAY_MS) * DAY_MS;
  const lastDay = Math.min(Math.max(days, 1), TOKEN_LIFETIME_DAYS);
  const endOfLastDay = vietnamDayStart + lastDay * DAY_MS + DAY_MS - 1000 - VIETNAM_OFFSET_MS;
  return new Date(Math.min(endOfLastDay, sessionMaxExpiresAt(loginAt).getTime()));
}

export function sessionMaxExpiresAt(loginAt: Date): Date {
  return new Date(loginAt.getTime() + SESSION_MAX_AGE_MS);
}

/** ISO 8601 in Vietnam time with its offset, e.g. `2026-12-05T23:59:59+07:00`. */
export function toVietnamIso(instant: Date): string {
  const shifted = new Date(instant.getTime() + VIETNAM_OFFSET_MS).toISOString();
  return `${shifted.slice(0, 19)}+07:00`;
}
