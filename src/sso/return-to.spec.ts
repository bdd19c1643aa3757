import { randomBytes } from 'node:crypto';
import { ApiError } from '../common/errors/api-error';
import { JwtKeyRing } from '../auth/credentials/jwt-key-ring';
import { SsoSecretBox, TotpSecretBox } from '../auth/mfa/totp-secret-box';
import { loadConfig } from '../config/app-config';
import { checkedReturnTo } from './return-to';

describe('checkedReturnTo', () => {
  const origins = ['https://app.example.com'];

  it.each(['/admin', '/admin/x?y=1', 'https://app.example.com/back'])('keeps %s', (value) => {
    expect(checkedReturnTo(value, origins)).toBe(value);
  });

  it.each([
    '//evil.example/x',
    '/\\evil.example',
    'https://evil.example/x',
    'https://u:p@app.example.com/',
    '/a#b',
    'x',
  ])('refuses %s (error_validation naming return_to)', (value) => {
    expect(() => checkedReturnTo(value, origins)).toThrow(ApiError);
  });
});

describe('SecretBox purposes', () => {
  it('opens its own values only: a TOTP box cannot open an SSO client secret', () => {
    const ring = new JwtKeyRing({ secrets: ['a-secret-that-is-long-enough-for-the-ring-0123456789'] });
    const sealed = new SsoSecretBox(ring).seal('client-secret');
    expect(new SsoSecretBox(ring).open(sealed)?.plain).toBe('client-secret');
    expect(new TotpSecretBox(ring).open(sealed)).toBeNull();
  });

  it('ENCRYPTION_KEY seals each purpose under a key of its own', () => {
    const ring = new JwtKeyRing({ secrets: ['a-secret-that-is-long-enough-for-the-ring-0123456789'] });
    const key = randomBytes(32);
    const sealed = new SsoSecretBox(ring, key).seal('client-secret');
    expect(sealed.startsWith(new SsoSecretBox(ring, key).currentPrefix)).toBe(true);
    expect(new SsoSecretBox(ring, key).open(sealed)?.plain).toBe('client-secret');
    expect(new TotpSecretBox(ring, key).open(sealed)).toBeNull();
    // A value sealed before ENCRYPTION_KEY was set still opens, and is marked for sealing again.
    const old = new SsoSecretBox(ring).seal('client-secret');
    expect(new SsoSecretBox(ring, key).open(old)).toEqual({ plain: 'client-secret', stale: true });
  });
});

describe('SSO_INSECURE_ISSUERS', () => {
  it('reads hosts and refuses anything else', () => {
    const base = { NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(40) };
    expect(loadConfig({ ...base, SSO_INSECURE_ISSUERS: 'localhost, 127.0.0.1:8080' }).ssoInsecureIssuers).toEqual([
      'localhost',
      '127.0.0.1:8080',
    ]);
    expect(() => loadConfig({ ...base, SSO_INSECURE_ISSUERS: 'http://x' })).toThrow(/SSO_INSECURE_ISSUERS/);
  });
});
