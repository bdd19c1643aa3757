import type { KeyObject } from 'node:crypto';
import { readDatabaseConfig } from './database-config';
import { boolean, type Env, integer, oneOf, positiveNumber } from './env-values';
import { readFilesConfig } from './files-config';
import { readNetworkConfig, type TrustProxy } from './network-config';
import { readWebauthnConfig } from './webauthn-config';
import { readRedisConfig } from './redis-config';
import { readStreamsConfig } from './streams-config';
import { readSheddingConfig } from './shedding-config';
import { readJwtSecrets, readMetricsToken } from './secrets-config';
import { readEncryptionKey, readSigningKeys } from './signing-keys-config';
import { readSsoConfig } from './sso-config';

export { ConfigError } from './env-values';
export type { TrustProxy } from './network-config';

export type NodeEnv = 'development' | 'production' | 'test';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

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
  /**
   * The database itself when `databaseUrl` is a pooler in transaction mode: what needs a session of its own
   * (migrations and their lock, LISTEN) connects here. `undefined`: `databaseUrl` is the database itself.
   */
  readonly databaseDirectUrl?: string;
  /** `undefined`: counters and revocation notices live in process memory. */
  readonly redisUrl?: string;
  /** A private CA (PEM file) that `rediss…://` servers' certificates are checked against. */
  readonly redisTlsCaFile?: string;
  /** Prefix of every Redis key and channel, so several deployments (or test runs) can share one Redis. */
  readonly redisKeyPrefix!: string;
  /** `undefined` outside production: a secret is generated once and kept under `dataDir`. */
  readonly jwtSecret?: string;
  /** Secrets that signed tokens still in circulation: verified, never used to sign. */
  readonly jwtPreviousSecrets!: string[];
  /** The Ed25519 key that signs (JWT_PRIVATE_KEY_FILE); `undefined`: HS256 under `jwtSecret`, or a generated key. */
  readonly jwtPrivateKey?: KeyObject;
  /** Public keys of earlier private keys (JWT_PUBLIC_KEY_FILES): verified and published, never used to sign. */
  readonly jwtPublicKeys!: KeyObject[];
  /** The key of the secrets stored sealed; `undefined`: derived from the JWT secret. */
  readonly encryptionKey?: Buffer;
  readonly rateLimitScale!: number;
  /** Requests of one credential (unauthenticated: one client IP) in flight at once across the fleet. */
  readonly concurrencyLimit!: number;
  /** How long a request's lease lives in Redis unless returned: a crashed instance's leases lapse within this. */
  readonly concurrencyLeaseMs!: number;
  /** The passkeys' relying party ID (a host name) and the browser origins whose ceremonies are accepted. */
  readonly webauthnRpId!: string;
  readonly webauthnOrigins!: string[];
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
  /**
   * Host names, IPs or CIDRs that security-event streams may deliver to even when private (a test's loopback
   * receiver). Cloud metadata addresses stay refused whatever this says.
   */
  readonly streamsAllowlist!: string[];
  /** One delivery attempt's whole budget (connect, request, answer). */
  readonly streamsDeliveryTimeoutMs!: number;
  /** First retry delay of a failing stream; it doubles per failure, up to an hour. */
  readonly streamsRetryBaseMs!: number;
  /** How often an instance looks for deliveries written by other instances while any stream is active. */
  readonly streamsPollMs!: number;
  /** Browser origins allowed to call the API (exact `scheme://host[:port]`); empty: no CORS headers at all. */
  readonly corsOrigins!: string[];
  /** Security events older than this many days are deleted; 0 keeps them forever. */
  readonly auditRetentionDays!: number;
  /** When set, `GET /metrics` answers only `Authorization: Bearer <metricsToken>`. */
  readonly metricsToken?: string;
  /** Hosts (`host[:port]`) whose SSO issuer may be `http://`: development and tests only. */
  readonly ssoInsecureIssuers!: string[];
  /**
   * The service's external origin, base of the SSO redirect URI; `undefined`: in development the request's own
   * scheme and host, in production no SSO flow can start.
   */
  readonly publicUrl?: string;
  /** The DNS servers (`ip[:port]`) domain verification asks; empty: the system's resolver. */
  readonly dnsServers!: string[];
  /**
   * Shedding load: requests in flight on this instance, and its event-loop delay (ms), past which it answers its
   * least important requests 503 (operations/shedding/). 0: that bound is off.
   */
  readonly shedMaxInFlight!: number;
  readonly shedMaxEventLoopDelayMs!: number;

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

/**
 * Builds the configuration from environment variables, each section read and validated by its own file.
 * Throws a {@link ConfigError} naming the first key that is missing or malformed, so a bad deployment stops at
 * boot instead of failing on some later request.
 */
export function loadConfig(env: Env = process.env): AppConfig {
  const nodeEnv = oneOf<NodeEnv>(env, 'NODE_ENV', ['development', 'production', 'test'], 'development');
  const isProduction = nodeEnv === 'production';
  const secrets = readJwtSecrets(env, isProduction);
  const network = readNetworkConfig(env, isProduction);
  const database = readDatabaseConfig(env);
  return new AppConfig({
    nodeEnv,
    ...network,
    ...database,
    ...readRedisConfig(env),
    ...secrets,
    ...readSigningKeys(env),
    encryptionKey: readEncryptionKey(env),
    rateLimitScale: positiveNumber(env, 'RATE_LIMIT_SCALE', 1),
    concurrencyLimit: integer(env, 'CONCURRENCY_LIMIT', 20, 1, 1_000_000),
    concurrencyLeaseMs: integer(env, 'CONCURRENCY_LEASE_MS', 30_000, 1000, 30_000),
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
    ...readFilesConfig(env),
    ...readStreamsConfig(env),
    ...readSheddingConfig(env, nodeEnv),
    auditRetentionDays: integer(env, 'AUDIT_RETENTION_DAYS', 365, 0, 36_500),
    metricsToken: readMetricsToken(env),
    ...readSsoConfig(env),
    ...readWebauthnConfig(env, network.port),
  } as AppConfig);
}
