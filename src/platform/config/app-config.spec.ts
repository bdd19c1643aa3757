import { ConfigError, loadConfig } from './app-config';

function errorOf(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('runs on the embedded default with no settings at all', () => {
    const config = loadConfig({});
    expect(config.usesEmbeddedDatabase).toBe(true);
    expect(config.port).toBe(3000);
    expect(config.host).toBe('127.0.0.1');
    expect(config.redisUrl).toBeUndefined();
    expect(config.rateLimitScale).toBe(1);
    expect(config.concurrencyLimit).toBe(20);
    expect(config.concurrencyLeaseMs).toBe(30_000);
    expect(config.trustProxy).toBe(false);
    expect(config.migrationsRun).toBe(true);
    expect(config.dataDir).toMatch(/\/data$/);
  });

  it('accepts every REDIS_URL form of the contract, a pooler with its direct URL, and a metrics token', () => {
    for (const redisUrl of [
      'redis://127.0.0.1:6379/1',
      'rediss://user:pw@cache.example.com:6380',
      'redis+sentinel://127.0.0.1:26379,127.0.0.1:26380/mymaster',
      'rediss+sentinel://u:p@s1.example.com:26379/main',
      'redis+cluster://127.0.0.1:7000,127.0.0.1:7001',
      'rediss+cluster://default:pw@clustercfg.example.com:6379',
    ]) {
      expect(loadConfig({ REDIS_URL: redisUrl }).redisUrl).toBe(redisUrl);
    }
    const config = loadConfig({
      DATABASE_URL: 'postgres://app@127.0.0.1:6432/app',
      DATABASE_DIRECT_URL: 'postgres://app@127.0.0.1:5432/app',
      REDIS_TLS_CA_FILE: __filename,
      METRICS_TOKEN: 'a-scrape-token-0123456789',
    });
    expect(config.databaseDirectUrl).toBe('postgres://app@127.0.0.1:5432/app');
    expect(config.redisTlsCaFile).toBe(__filename);
    expect(config.metricsToken).toBe('a-scrape-token-0123456789');
  });

  it('never echoes a REDIS_URL, which may carry a password', () => {
    const error = errorOf({ REDIS_URL: 'redis+sentinel://admin:sup3r-secret@10.0.0.1:26379' });
    expect(error.message).not.toContain('sup3r-secret');
  });

  it('listens on every interface by default in production', () => {
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }).host).toBe('0.0.0.0');
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV'],
    [{ NODE_ENV: 'production' }, 'JWT_SECRET'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ NODE_ENV: 'production', JWT_PRIVATE_KEY_FILE: __filename }, 'ENCRYPTION_KEY'],
    [{ JWT_PRIVATE_KEY_FILE: '/nonexistent/key.pem' }, 'JWT_PRIVATE_KEY_FILE'],
    [{ JWT_PRIVATE_KEY_FILE: __filename }, 'JWT_PRIVATE_KEY_FILE'],
    [{ JWT_PUBLIC_KEY_FILES: `${__filename}` }, 'JWT_PUBLIC_KEY_FILES'],
    [{ ENCRYPTION_KEY: 'dG9vIHNob3J0' }, 'ENCRYPTION_KEY'],
    [{ ENCRYPTION_KEY: 'not base64 at all!' }, 'ENCRYPTION_KEY'],
    [{ DATABASE_URL: 'mysql://u:p@h/db' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'http://localhost:6379' }, 'REDIS_URL'],
    [{ REDIS_URL: 'redis+sentinel://127.0.0.1:26379' }, 'REDIS_URL'],
    [{ REDIS_URL: 'redis+cluster://127.0.0.1:7000/0' }, 'REDIS_URL'],
    [{ REDIS_URL: 'rediss+cluster://:pw@' }, 'REDIS_URL'],
    [{ REDIS_URL: 'redis://127.0.0.1', REDIS_TLS_CA_FILE: '/nonexistent/ca.pem' }, 'REDIS_TLS_CA_FILE'],
    [{ DATABASE_DIRECT_URL: 'postgres://127.0.0.1/test' }, 'DATABASE_DIRECT_URL'],
    [{ DATABASE_URL: 'postgres://127.0.0.1:6432/test', DATABASE_DIRECT_URL: 'mysql://h/db' }, 'DATABASE_DIRECT_URL'],
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN'],
    [{ METRICS_TOKEN: 'has a space in the middle' }, 'METRICS_TOKEN'],
    [{ RATE_LIMIT_SCALE: '0' }, 'RATE_LIMIT_SCALE'],
    [{ RATE_LIMIT_SCALE: '-2' }, 'RATE_LIMIT_SCALE'],
    [{ CONCURRENCY_LIMIT: '0' }, 'CONCURRENCY_LIMIT'],
    [{ CONCURRENCY_LIMIT: '2.5' }, 'CONCURRENCY_LIMIT'],
    [{ CONCURRENCY_LEASE_MS: '60000' }, 'CONCURRENCY_LEASE_MS'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: 'loadbalancer' }, 'TRUST_PROXY'],
    [{ MIGRATIONS_RUN: 'maybe' }, 'MIGRATIONS_RUN'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ HOST: 'example.com' }, 'HOST'],
    [{ ARGON2_MEMORY_KIB: '8' }, 'ARGON2_MEMORY_KIB'],
    [{ FILES_MAX_BYTES: '0' }, 'FILES_MAX_BYTES'],
    [{ FILES_MAX_BYTES: '10MB' }, 'FILES_MAX_BYTES'],
    [{ FILES_FETCH_TIMEOUT_MS: '10' }, 'FILES_FETCH_TIMEOUT_MS'],
    [{ FILES_FETCH_ALLOWLIST: 'images.internal, not a host!' }, 'FILES_FETCH_ALLOWLIST'],
    [{ FILES_FETCH_ALLOWLIST: '10.0.0.0/40' }, 'FILES_FETCH_ALLOWLIST'],
  ])('refuses %p naming %s in one line', (env, key) => {
    const error = errorOf(env as Record<string, string>);
    expect(error.key).toBe(key);
    expect(error.message.startsWith(key)).toBe(true);
    expect(error.message).not.toContain('\n');
  });

  it('never echoes a connection URL, which carries a password', () => {
    const error = errorOf({ DATABASE_URL: 'mysql://admin:sup3r-secret@db/prod' });
    expect(error.message).not.toContain('sup3r-secret');
  });

  it('reads TRUST_PROXY as a hop count or a list of addresses', () => {
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.1,::1' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '192.168.1.1',
      '::1',
    ]);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
  });

  it('takes PostgreSQL and Redis URLs as given', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u@h:5432/db', REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(config.usesEmbeddedDatabase).toBe(false);
    expect(config.databaseUrl).toBe('postgres://u@h:5432/db');
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
  });

  it('limits files to 10 MiB fetched within 5 s from public addresses only, unless told otherwise', () => {
    const defaults = loadConfig({});
    expect([defaults.filesMaxBytes, defaults.filesFetchTimeoutMs, defaults.filesFetchAllowlist]).toEqual([
      10 * 1024 * 1024,
      5000,
      [],
    ]);
    expect(loadConfig({ FILES_FETCH_ALLOWLIST: 'Images.Internal, 10.20.0.0/16,::1' }).filesFetchAllowlist).toEqual([
      'images.internal',
      '10.20.0.0/16',
      '::1',
    ]);
  });

  it('treats an empty value as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', PORT: ' ' }).usesEmbeddedDatabase).toBe(true);
  });
});

describe('CORS_ORIGINS', () => {
  it('is empty when unset, and keeps exact origins once each', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(
      loadConfig({ CORS_ORIGINS: 'https://app.example.com, http://localhost:5173,https://app.example.com' })
        .corsOrigins,
    ).toEqual(['https://app.example.com', 'http://localhost:5173']);
  });

  it.each([
    'https://app.example.com/',
    'https://app.example.com/path',
    'app.example.com',
    '*',
    'ftp://x.io',
    'https://x.io:443',
  ])('refuses %s, which a browser never sends as an Origin', (value) => {
    const error = errorOf({ CORS_ORIGINS: value });
    expect(error.key).toBe('CORS_ORIGINS');
    expect(error.message).toContain(value);
  });
});

describe('WEBAUTHN_RP_ID and WEBAUTHN_ORIGINS', () => {
  it('default to localhost and the port the service listens on', () => {
    const config = loadConfig({ PORT: '4100' });
    expect([config.webauthnRpId, config.webauthnOrigins]).toEqual(['localhost', ['http://localhost:4100']]);
    const set = loadConfig({
      WEBAUTHN_RP_ID: 'example.com',
      WEBAUTHN_ORIGINS: 'https://admin.example.com,https://example.com',
    });
    expect(set.webauthnOrigins).toEqual(['https://admin.example.com', 'https://example.com']);
  });

  it.each([
    [{ WEBAUTHN_RP_ID: '10.0.0.1:80' }, 'WEBAUTHN_RP_ID'],
    [{ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'http://example.com' }, 'WEBAUTHN_ORIGINS'],
    [{ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://example.org' }, 'WEBAUTHN_ORIGINS'],
    [{ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://badexample.com' }, 'WEBAUTHN_ORIGINS'],
    [{ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://example.com/' }, 'WEBAUTHN_ORIGINS'],
  ])('refuses %j (plain http off localhost, another site, a path)', (env, key) => {
    expect(errorOf(env as Record<string, string>).key).toBe(key);
  });
});

describe('.env.example', () => {
  it('lists every setting loadConfig reads', () => {
    const { readdirSync, readFileSync } = jest.requireActual<typeof import('node:fs')>('node:fs');
    // Every section file of the configuration: app-config.ts and the ones it reads each section with.
    const source = readdirSync(__dirname)
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'))
      .map((file) => readFileSync(`${__dirname}/${file}`, 'utf8'))
      .join('\n');
    const example = readFileSync(`${__dirname}/../../../.env.example`, 'utf8');
    const keys = new Set([...source.matchAll(/\(env, '([A-Z][A-Z0-9_]+)'/g)].map((match) => match[1]));
    expect(keys.size).toBeGreaterThan(15);
    const missing = [...keys].filter((key) => !new RegExp(`^#? ?${key}=`, 'm').test(example));
    expect(missing).toEqual([]);
  });
});
