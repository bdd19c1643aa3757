import type { RedisConnection } from './redis-connection';

/** What went wrong with a Redis connection, in the operator's words. */
export type RedisFailureKind =
  'refused' | 'timed_out' | 'certificate_not_trusted' | 'authentication_failed' | 'host_not_found' | 'other';

export interface RedisFailure {
  kind: RedisFailureKind;
  /** One sentence naming the failure and what to check. */
  message: string;
}

/** Node's codes for a TLS peer certificate that the client did not accept. */
const CERTIFICATE_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

type NodeError = Error & { code?: string; address?: string; port?: number; lastNodeError?: unknown };

/**
 * Names a Redis connection error for what it is. ioredis reports most of them through the client's 'error'
 * event; a Cluster or Sentinel client wraps the node's own error (`lastNodeError`), which is the informative one.
 */
export function describeRedisFailure(raw: unknown): RedisFailure {
  const error = (
    raw instanceof Error && (raw as NodeError).lastNodeError instanceof Error ? (raw as NodeError).lastNodeError : raw
  ) as NodeError;
  const code = error?.code ?? '';
  const text = String(error?.message ?? error);
  const at = error?.address ? ` at ${error.address}${error.port ? `:${error.port}` : ''}` : '';
  if (CERTIFICATE_CODES.has(code)) {
    return {
      kind: 'certificate_not_trusted',
      message:
        `the Redis server's TLS certificate was refused (${code}: ${text}); ` +
        'REDIS_TLS_CA_FILE must name the CA that signed it, and the certificate must name the host in REDIS_URL',
    };
  }
  if (code === 'ECONNREFUSED') return { kind: 'refused', message: `Redis refused the connection${at} (${text})` };
  if (code === 'ETIMEDOUT' || /timed? ?out/i.test(text)) {
    return { kind: 'timed_out', message: `Redis did not answer in time${at} (${text})` };
  }
  if (/^(WRONGPASS|NOAUTH)\b|invalid password|invalid username-password/i.test(text)) {
    return {
      kind: 'authentication_failed',
      message: `Redis refused the credentials (${text}); check the user and password in REDIS_URL`,
    };
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return { kind: 'host_not_found', message: `the Redis host name does not resolve (${text})` };
  }
  return { kind: 'other', message: `Redis connection failed (${code ? `${code}: ` : ''}${text})` };
}

interface WarnLogger {
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

/**
 * Watches a connection's errors: the first failure of each kind in an outage is logged once, with its name (a
 * reconnect loop repeats the same error every few hundred milliseconds), and the return is logged when the
 * connection is ready again. `/health` reads {@link current} to say why Redis is down.
 */
export class RedisFailureWatch {
  private failure: RedisFailure | null = null;
  private readonly loggedThisOutage = new Set<RedisFailureKind>();

  constructor(
    private readonly logger: WarnLogger,
    private readonly what = 'redis',
  ) {}

  /** Attaches to the connection; it also keeps an 'error' event from crashing the process. */
  watch(connection: RedisConnection): this {
    connection.on('error', (error: unknown) => this.failed(error));
    // A Cluster reports each node's own error here; its 'error' event carries only "failed to refresh slots".
    connection.on('node error', (error: unknown) => this.failed(error));
    connection.on('ready', () => this.recovered());
    return this;
  }

  /** The failure of the outage under way, or `null` while the connection works. */
  get current(): RedisFailure | null {
    return this.failure;
  }

  failed(error: unknown): void {
    const failure = describeRedisFailure(error);
    // Once a more telling failure is known, a generic one of the same outage does not replace it.
    if (failure.kind !== 'other' || !this.failure) this.failure = failure;
    if (this.loggedThisOutage.has(failure.kind)) return;
    this.loggedThisOutage.add(failure.kind);
    this.logger.warn(
      { event: 'redis_connection_failed', connection: this.what, reason: failure.kind },
      failure.message,
    );
  }

  recovered(): void {
    if (this.failure) {
      this.logger.info({ event: 'redis_connection_ready', connection: this.what }, 'Redis connection ready again');
    }
    this.failure = null;
    this.loggedThisOutage.clear();
  }
}
