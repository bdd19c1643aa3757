import { randomBytes } from 'node:crypto';
import { ApiError } from '../../platform/common/errors/api-error';
import { JwtKeyRing } from '../../platform/keys/jwt-key-ring';
import { SsoSecretBox, TotpSecretBox } from '../../platform/keys/secret-boxes';
import { loadConfig } from '../../platform/config/app-config';
import { checkedReturnTo } from './return-to';

describe('checkedReturnTo', () => {
  const service = 'https://staff.example.com';
  const origins = ['https://app.example.com'];

  it.each(['/admin', '/admin/x?y=1', '/a/../b', '/%2F%2Fevil.example', 'https://app.example.com/back'])(
    'keeps %s, as given',
    (value) => {
      expect(checkedReturnTo(value, service, origins)).toBe(value);
    },
  );

  it.each([
    '//evil.example/x',
    '/\\evil.example',
    '/\t/evil.example/steal',
    '/x\r\nSet-Cookie: a=b',
    '/ admin',
    '/admin\u0000',
    '/caf\u00e9',
    '/\uff0fevil.example',
    'https://evil.example/x',
    'https://app.example.com',
    'https://app.example.com//evil.example',
    'https://app.example.com.evil.example/x',
    'https://u:p@app.example.com/',
    'https://app.example.com@evil.example/',
    'HTTPS://APP.EXAMPLE.COM/x',
    'javascript:alert(1)',
    '/a#b',
    'x',
    '',
  ])('refuses %j (error_validation naming return_to)', (value) => {
    let error: unknown;
    try {
      checkedReturnTo(value, service, origins);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).details).toEqual([expect.objectContaining({ field: 'return_to' })]);
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
