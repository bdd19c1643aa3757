import { isIP } from 'node:net';
import { resolve } from 'node:path';

export type NodeEnv = 'development' | 'production' | 'test';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * `false`: the client IP is the socket address. A number: how many proxy hops in front of the service are
 * believed. A list: the proxies (IPs or CIDRs) whose `X-Forwarded-For` is believed.
 */
export type TrustProxy = false | number | string[];

export interface Argon2Cost {
  memoryKib: number;
  timeCost: number;
  parallelism: number;
}

/** The service's whole configuration, read and validated once at boot. */
export class AppConfig {
  readonly nodeEnv!: NodeEnv;
  readonly port!: number;
  readonly host!: string;
  /** `undefined`: the embedded PostgreSQL (PGlite) under `dataDir`. */
  readonly databaseUrl?: string;
  readonly dataDir!: string;
  /** How long a request waits for a new PostgreSQL connection before it is answered 503. */
  readonly databaseConnectTimeoutMs!: number;
  /**
   * How long one statement may go unanswered before the request is answered 503 and its connection closed
   * (on the embedded database: how long a request waits for the single session). This, not TCP keepalive or
   * `statement_timeout`, is what bounds a request on a pooled connection whose server or network went silent:
   * the server cannot enforce a limit it never hears about, and keepalive probes take minutes. So it is kept
   * short enough for a 503 within 2 s (well above any statement of this service under load); raise it for a
   * `migration:run` whose migration rewrites a large table.
   */
  readonly databaseQueryTimeoutMs!: number;
  readonly databasePoolSize!: number;
  /** `undefined`: counters and revocation notices live in process memory. */
  readonly redisUrl?: string;
  /** Prefix of every Redis key and channel, so several deployments (or test runs) can share one Redis. */
  readonly redisKeyPrefix!: string;
  /** `undefined` outside production: a secret is generated once and kept under `dataDir`. */
  readonly jwtSecret?: string;
  /** Secrets that signed tokens still in circulation: verified, never used to sign. */
  readonly jwtPreviousSecrets!: string[];
  readonly rateLimitScale!: number;
  readonly trustProxy!: TrustProxy;
  readonly migrationsRun!: boolean;
  /** Demo data on first start: always on an empty embedded database unless false, on PostgreSQL only when true. */
  readonly seedDemo?: boolean;
  readonly logLevel!: LogLevel;
  readonly argon2!: Argon2Cost;
  readonly shutdownTimeoutMs!: number;
  /** Largest file `POST /v1/files` stores, and largest image `addimagefromurl` downloads. */
  readonly filesMaxBytes!: number;
  /** Whole-fetch budget of `addimagefromurl`: every redirect hop and the body, not each socket read. */
  readonly filesFetchTimeoutMs!: number;
  /**
   * Host names, IPs or CIDRs that `addimagefromurl` may reach even when private (an internal image host, or the
   * loopback server of a test). Cloud metadata addresses stay refused whatever this says.
   */
  readonly filesFetchAllowlist!: string[];
  /** Browser origins allowed to call the API (exact `scheme://host[:port]`); empty: no CORS headers at all. */
  readonly corsOrigins!: string[];
  /** Security events older than this many days are deleted; 0 keeps them forever. */
  readonly auditRetentionDays!: number;

  constructor(values: AppConfig) {
    Object.assign(this, values);
  }

  get isProduction(): boolean {
    return this.nodeEnv === 'production';
  }

  get usesEmbeddedDatabase(): boolean {
    return this.databaseUrl === undefined;
  }
}

/** A setting that is missing or malformed; the message names the key and is one line. */
export class ConfigError extends Error {
  constructor(
    readonly key: string,
    problem: string,
  ) {
    super(`${key} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function read(env: Env, key: string): string | undefined {
  const value = env[key];
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function integer(env: Env, key: string, fallback: number, min: number, max: number): number {
  const raw = read(env, key);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(key, `must be a whole number from ${min} to ${max}, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) {
    throw new ConfigError(key, `must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function boolean(env: Env, key: string): boolean | undefined {
  const raw = read(env, key)?.toLowerCase();
  if (raw === undefined) return undefined;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(key, `must be true or false, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, key: string, allowed: readonly T[], fallback: T): T {
  const raw = read(env, key);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(key, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function url(env: Env, key: string, protocols: string[]): string | undefined {
  const raw = read(env, key);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    // Never echo the value: a connection URL usually carries a password.
    throw new ConfigError(key, `must be a ${protocols.join(' or ')} URL`);
  }
  if (!protocols.includes(parsed.protocol.replace(/:$/, '') + '://')) {
    throw new ConfigError(key, `must be a ${protocols.join(' or ')} URL`);
  }
  return raw;
}

function isCidrOrIp(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  if (rest.length > 0) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d+$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

function trustProxy(env: Env): TrustProxy {
  const raw = read(env, 'TRUST_PROXY');
  if (raw === undefined || raw.toLowerCase() === 'false') return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops < 1 || hops > 10) throw new ConfigError('TRUST_PROXY', `hop count must be from 1 to 10, got "${raw}"`);
    return hops;
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  const bad = entries.find((entry) => !isCidrOrIp(entry));
  if (bad !== undefined) {
    throw new ConfigError('TRUST_PROXY', `must be a hop count or a comma-separated list of IPs/CIDRs, got "${bad}"`);
  }
  return entries;
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

function filesFetchAllowlist(env: Env): string[] {
  const entries = (read(env, 'FILES_FETCH_ALLOWLIST') ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
  const bad = entries.find((entry) => !isCidrOrIp(entry) && !HOST_NAME.test(entry));
  if (bad !== undefined) {
    throw new ConfigError(
      'FILES_FETCH_ALLOWLIST',
      `must be a comma-separated list of host names, IPs or CIDRs, got "${bad}"`,
    );
  }
  return entries;
}

function redisKeyPrefix(env: Env): string {
  const raw = read(env, 'REDIS_KEY_PREFIX') ?? 'staff-auth:';
  // Braces would change the Redis Cluster hash slot of the rate-limit keys.
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(raw)) {
    throw new ConfigError('REDIS_KEY_PREFIX', `must be 1 to 64 letters, digits or ":_.-", got "${raw}"`);
  }
  return raw;
}

function corsOrigins(env: Env): string[] {
  const entries = (read(env, 'CORS_ORIGINS') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    let origin: string | undefined;
    try {
      const parsed = new URL(entry);
      if (parsed.protocol === 'http:' || parsed.protocol === 'https:') origin = parsed.origin;
    } catch {
      origin = undefined;
    }
    // Browsers send the origin exactly so (no path, no trailing slash, default port omitted); anything else
    // would never match and silently refuse every request.
    if (origin !== entry) {
      throw new ConfigError(
        'CORS_ORIGINS',
        `must be a comma-separated list of origins like https://app.example.com, got "${entry}"`,
      );
    }
  }
  return [...new Set(entries)];
}

function positiveNumber(env: Env, key: string, fallback: number): number {
  const raw = read(env, key);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !Number.isFinite(value) || value <= 0) {
    throw new ConfigError(key, `must be a positive number, got "${raw}"`);
  }
  return value;
}

/**
 * Builds the configuration from environment variables. Throws a {@link ConfigError} naming the first key that
 * is missing or malformed, so a bad deployment stops at boot instead of failing on some later request.
 */
export function loadConfig(env: Env = process.env): AppConfig {
  const nodeEnv = oneOf<NodeEnv>(env, 'NODE_ENV', ['development', 'production', 'test'], 'development');
  const isProduction = nodeEnv === 'production';

  const jwtSecret = read(env, 'JWT_SECRET');
  if (jwtSecret === undefined && isProduction) {
    throw new ConfigError('JWT_SECRET', 'is required when NODE_ENV=production');
  }
  if (jwtSecret !== undefined && Buffer.byteLength(jwtSecret) < 32) {
    throw new ConfigError('JWT_SECRET', 'must be at least 32 bytes long');
  }
  const jwtPreviousSecrets = (read(env, 'JWT_PREVIOUS_SECRETS') ?? '')
    .split(',')
    .map((secret) => secret.trim())
    .filter((secret) => secret !== '');
  if (jwtPreviousSecrets.some((secret) => Buffer.byteLength(secret) < 32)) {
    throw new ConfigError('JWT_PREVIOUS_SECRETS', 'must list secrets of at least 32 bytes each, comma-separated');
  }

  const host = read(env, 'HOST') ?? (isProduction ? '0.0.0.0' : '127.0.0.1');
  if (isIP(host) === 0 && host !== 'localhost') throw new ConfigError('HOST', `must be an IP address, got "${host}"`);

  return new AppConfig({
    nodeEnv,
    port: integer(env, 'PORT', 3000, 0, 65535),
    host,
    databaseUrl: url(env, 'DATABASE_URL', ['postgres://', 'postgresql://']),
    dataDir: resolve(read(env, 'DATA_DIR') ?? './data'),
    databaseConnectTimeoutMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', 1500, 100, 60_000),
    databaseQueryTimeoutMs: integer(env, 'DATABASE_QUERY_TIMEOUT_MS', 1500, 100, 600_000),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 500),
    redisUrl: url(env, 'REDIS_URL', ['redis://', 'rediss://']),
    redisKeyPrefix: redisKeyPrefix(env),
    jwtSecret,
    jwtPreviousSecrets,
    rateLimitScale: positiveNumber(env, 'RATE_LIMIT_SCALE', 1),
    trustProxy: trustProxy(env),
    migrationsRun: boolean(env, 'MIGRATIONS_RUN') ?? true,
    seedDemo: boolean(env, 'SEED_DEMO'),
    logLevel: oneOf<LogLevel>(
      env,
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      nodeEnv === 'test' ? 'warn' : 'info',
    ),
    argon2: {
      memoryKib: integer(env, 'ARGON2_MEMORY_KIB', 19_456, 1024, 4_194_304),
      timeCost: integer(env, 'ARGON2_TIME_COST', 2, 1, 100),
      parallelism: integer(env, 'ARGON2_PARALLELISM', 1, 1, 16),
    },
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 300_000),
    filesMaxBytes: integer(env, 'FILES_MAX_BYTES', 10 * 1024 * 1024, 1, 1024 * 1024 * 1024),
    filesFetchTimeoutMs: integer(env, 'FILES_FETCH_TIMEOUT_MS', 5000, 100, 60_000),
    filesFetchAllowlist: filesFetchAllowlist(env),
    corsOrigins: corsOrigins(env),
    auditRetentionDays: integer(env, 'AUDIT_RETENTION_DAYS', 365, 0, 36_500),
  } as AppConfig);
}
