import type { FastifyRequest } from 'fastify';
import { bindingCookie, bindingFor, bindingHash, bindingOf } from './browser-binding';

const withCookie = (cookie?: string) => ({ headers: cookie === undefined ? {} : { cookie } }) as FastifyRequest;
const VALUE = 'a'.repeat(43);

describe('the SSO browser binding', () => {
  it('reads its cookie under the name its scheme gives it, and only a well-formed value', () => {
    expect(bindingOf(withCookie(`x=1; staff_auth_sso=${VALUE}`), false)).toBe(VALUE);
    expect(bindingOf(withCookie(`__Host-staff_auth_sso=${VALUE}`), true)).toBe(VALUE);
    // Over https a cookie without the __Host- prefix could have been set by a subdomain: not taken.
    expect(bindingOf(withCookie(`staff_auth_sso=${VALUE}`), true)).toBeNull();
    expect(bindingOf(withCookie(`staff_auth_sso=${VALUE.slice(1)}`), false)).toBeNull();
    expect(bindingOf(withCookie(`staff_auth_sso=${VALUE};x`), false)).toBe(VALUE);
    expect(bindingOf(withCookie(), false)).toBeNull();
  });

  it('keeps a browser’s binding for its next sign-in, or makes a random one', () => {
    expect(bindingFor(withCookie(`staff_auth_sso=${VALUE}`), false)).toBe(VALUE);
    const made = bindingFor(withCookie(), false);
    expect(made).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(bindingFor(withCookie(), false)).not.toBe(made);
  });

  it('is HttpOnly and SameSite=Lax, Secure and __Host- over https', () => {
    expect(bindingCookie(VALUE, false)).toBe(`staff_auth_sso=${VALUE}; Path=/; Max-Age=900; HttpOnly; SameSite=Lax`);
    expect(bindingCookie(VALUE, true)).toBe(
      `__Host-staff_auth_sso=${VALUE}; Path=/; Max-Age=900; HttpOnly; SameSite=Lax; Secure`,
    );
  });

  it('stores a hash no request without a binding can match', () => {
    expect(bindingHash(VALUE)).toMatch(/^[0-9a-f]{64}$/);
    expect(bindingHash(null)).not.toMatch(/^[0-9a-f]{64}$/);
  });
});
