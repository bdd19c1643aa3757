import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { sha256Hex } from '../auth/credentials/sha256';

/**
 * The cookie that binds a sign-in to the browser that started it (docs/contract.md "Company single sign-on"):
 * `POST /v1/sso/start` sets it, the callback and `POST /v1/sso/exchange` want it back, so a code that leaks, or
 * one an attacker plants in a victim's page (login CSRF), is useless in another browser. Only its SHA-256 is
 * stored, beside the flow and the code. HttpOnly (no script reads it), SameSite=Lax (sent on the provider's
 * top-level redirect to the callback, not on other sites' requests). Over https it is Secure and `__Host-`
 * prefixed, so no subdomain can set it.
 */
const NAME = 'staff_auth_sso';
/** A flow lives 10 minutes and its code one more: the cookie outlives both. */
const MAX_AGE_SECONDS = 15 * 60;
const VALUE = /^[A-Za-z0-9_-]{43}$/;
/** Stored where a request brought no binding: no stored hash (64 hex digits) equals it. */
const NO_BROWSER = 'none';

const cookieName = (secure: boolean) => (secure ? `__Host-${NAME}` : NAME);

/** The binding the request's browser carries, if any (only under the name its scheme gives it). */
export function bindingOf(request: FastifyRequest, secure: boolean): string | null {
  const name = cookieName(secure);
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) {
      const value = part.slice(at + 1).trim();
      return VALUE.test(value) ? value : null;
    }
  }
  return null;
}

/**
 * The browser's binding for a new flow: the one it already carries (several sign-ins may be under way in one
 * browser, in several tabs), or a new random one.
 */
export function bindingFor(request: FastifyRequest, secure: boolean): string {
  return bindingOf(request, secure) ?? randomBytes(32).toString('base64url');
}

/** The `Set-Cookie` value that gives the browser its binding. */
export function bindingCookie(value: string, secure: boolean): string {
  const attributes = [`Path=/`, `Max-Age=${MAX_AGE_SECONDS}`, 'HttpOnly', 'SameSite=Lax'];
  if (secure) attributes.push('Secure');
  return [`${cookieName(secure)}=${value}`, ...attributes].join('; ');
}

/** What the database keeps of a binding (and what matches nothing when the request brought none). */
export function bindingHash(value: string | null): string {
  return value === null ? NO_BROWSER : sha256Hex(value);
}
