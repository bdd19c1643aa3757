import { ConfigError } from './env-values';
import { readSsoConfig } from './sso-config';

function refusal(env: Record<string, string>): ConfigError {
  try {
    readSsoConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('PUBLIC_URL', () => {
  it('is unset by default, and keeps an origin as written', () => {
    expect(readSsoConfig({}).publicUrl).toBeUndefined();
    expect(readSsoConfig({ PUBLIC_URL: 'https://staff.example.com' }).publicUrl).toBe('https://staff.example.com');
    expect(readSsoConfig({ PUBLIC_URL: 'http://localhost:3000' }).publicUrl).toBe('http://localhost:3000');
  });

  it.each([
    'https://staff.example.com/',
    'https://staff.example.com/auth',
    'staff.example.com',
    'ftp://staff.example.com',
    'https://staff.example.com:443',
    'https://user@staff.example.com',
    'https://staff.example.com?x',
  ])('refuses %s at boot, naming the key and the value', (value) => {
    const error = refusal({ PUBLIC_URL: value });
    expect(error.key).toBe('PUBLIC_URL');
    expect(error.message).toContain(value);
  });
});

describe('DNS_SERVERS', () => {
  it('is empty by default (the system resolver) and keeps addresses with or without a port', () => {
    expect(readSsoConfig({}).dnsServers).toEqual([]);
    expect(readSsoConfig({ DNS_SERVERS: '127.0.0.1:5353, 8.8.8.8,::1,[2001:db8::1]:53' }).dnsServers).toEqual([
      '127.0.0.1:5353',
      '8.8.8.8',
      '::1',
      '[2001:db8::1]:53',
    ]);
  });

  it.each(['dns.google', 'localhost:53', '127.0.0.1:0', '127.0.0.1:70000', '[::1', '1.2.3', '127.0.0.1:x'])(
    'refuses %s at boot (node asks addresses, not names)',
    (value) => {
      const error = refusal({ DNS_SERVERS: value });
      expect(error.key).toBe('DNS_SERVERS');
      expect(error.message).toContain(value);
    },
  );
});
