import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as docs/contract.md fixes it: SHA-1, 6 digits, 30-second steps; the previous and next step are accepted. */
export const TOTP_PERIOD_S = 30;
export const TOTP_DIGITS = 6;
export const TOTP_WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;
const ISSUER = 'Staff Auth';

function totpOf(secretBase32: string, label = 'account'): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_S,
    secret: Secret.fromBase32(secretBase32),
  });
}

/** A new 160-bit secret (RFC 4226's recommended length), in base32, with its `otpauth://` URI for the app. */
export function newTotpSecret(accountEmail: string): { secret: string; uri: string } {
  const secret = new Secret({ size: 20 }).base32;
  return { secret, uri: totpOf(secret, accountEmail).toString() };
}

/** The time step a code belongs to, when it is right at `nowMs` within ±1 step; null otherwise. */
export function totpStepOf(secretBase32: string, code: string, nowMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(secretBase32).validate({ token: code, timestamp: nowMs, window: TOTP_WINDOW });
  return delta === null ? null : Math.floor(nowMs / 1000 / TOTP_PERIOD_S) + delta;
}

/** The code of a given moment (tests, and the page's set-up check use an authenticator instead). */
export function totpCodeAt(secretBase32: string, nowMs: number): string {
  return totpOf(secretBase32).generate({ timestamp: nowMs });
}

/**
 * Ten recovery codes of 80 random bits each, as `xxxx-xxxx-xxxx-xxxx` (base32, no ambiguous case). Being that
 * random, they are stored as their SHA-256, like refresh tokens; a slow hash would add nothing.
 */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const text = new Secret({ buffer: new Uint8Array(randomBytes(10)).buffer }).base32.toLowerCase();
    return text.match(/.{4}/g)!.join('-');
  });
}

/** The form a typed recovery code is compared in: lower case, without spaces or dashes. */
export function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}
