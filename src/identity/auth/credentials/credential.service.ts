import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Clock } from '../../../platform/common/clock/clock';
import { AppMetrics } from '../../../platform/common/metrics/app-metrics';
import {
  NO_CREDENTIAL,
  RateLimitCredentials,
  RateLimitCredentialSource,
} from '../../../access/rules/rate-limit-credentials';
import { type CredentialStrategy, type LookUpResult, NOT_KEPT } from './credential-strategy';
import { CredentialStrategies } from './credential-strategies';
import { type CachedCredential, CredentialCache } from './credential-cache';
import type { CredentialVerdict, Principal } from '../../../access/rules/principal';
import { type RevocationNotice, RevocationBus } from '../../../platform/revocation/revocation-bus';
import { evictedBy } from './evicted-by';
import { sha256Hex } from './sha256';
import { UsageRecorder } from './usage-recorder';
import type { ClientInfo } from '../../../platform/common/http/client-info';

export { sha256Hex } from './sha256';

/** The query parameter that used to carry credentials; refused since October 2026. */
export const QUERY_CREDENTIAL_PARAM = '__jwtAuthorization';

/** How long a looked-up credential is trusted without asking the database again, should a notice be lost. */
const CACHE_FRESHNESS_MS = 30_000;
/** Longer headers are never remembered: made-up ones must not fill memory (JWTs are ~300 characters, keys ~80). */
const MAX_CACHED_HEADER_LENGTH = 1024;

// Verdicts without a principal are the same object every time: the hot path allocates nothing for them.
const QUERY_NOT_ALLOWED: CredentialVerdict = { status: 'query_not_allowed' };
const MISSING: CredentialVerdict = { status: 'missing' };
const NOT_FOUND: CredentialVerdict = { status: 'not_found' };
const BLACKLISTED: CredentialVerdict = { status: 'blacklisted' };
const EXPIRED: CredentialVerdict = { status: 'expired' };

const VERDICT = Symbol('credentialVerdict');
type RequestWithMemo = FastifyRequest & { [VERDICT]?: CredentialVerdict | Promise<CredentialVerdict> };

/**
 * Decides what a request's credential is worth, in the order of docs/contract.md: the query parameter, a missing
 * header, a Bearer prefix, then the first {@link CredentialStrategy} that accepts the header's form (API key
 * `key:secret`, else JWT). It owns the cache and the dispatch; the strategies own the look-ups.
 *
 * - A credential already seen is answered from memory, synchronously.
 * - Concurrent first requests with one credential share one look-up (single flight).
 * - A revocation notice bumps {@link epoch}: a look-up begun before it may carry a stale "valid", so it is neither
 *   remembered nor shared with later requests: a revocation holds from the moment it is acknowledged.
 */
@RateLimitCredentialSource()
@Injectable()
export class CredentialService implements RateLimitCredentials {
  private readonly cache = new CredentialCache();
  private readonly inFlight = new Map<string, Promise<CachedCredential>>();
  private epoch = 0;

  constructor(
    private readonly strategies: CredentialStrategies,
    private readonly clock: Clock,
    private readonly usage: UsageRecorder,
    private readonly bus: RevocationBus,
    metrics: AppMetrics,
  ) {
    bus.onNotice((notice) => this.forget(notice));
    metrics.readGauge({
      name: 'credential_cache_entries',
      help: 'Credentials this instance remembers (answered without a database query).',
      read: () => this.cache.size,
    });
  }

  /**
   * The verdict when memory alone can give it, else `undefined` (a look-up is needed: call {@link resolve}).
   * Remembered on the request, so every guard that asks gets the same answer and usage is recorded once.
   */
  peek(request: FastifyRequest): CredentialVerdict | undefined {
    const memo = (request as RequestWithMemo)[VERDICT];
    if (memo !== undefined) return memo instanceof Promise ? undefined : memo;
    const verdict = this.decideFromMemory(request);
    if (verdict !== undefined) (request as RequestWithMemo)[VERDICT] = verdict;
    return verdict;
  }

  /** The verdict on this request's credential, worked out once however many ask, then kept (knownOwner sees it). */
  resolve(request: FastifyRequest): CredentialVerdict | Promise<CredentialVerdict> {
    const known = this.peek(request);
    if (known !== undefined) return known;
    const memo = request as RequestWithMemo;
    const header = request.headers.authorization as string;
    return (memo[VERDICT] ??= this.lookUpVerdict(header).then((verdict) => (memo[VERDICT] = verdict)));
  }

  knownTokenHash(request: FastifyRequest): string | undefined {
    const verdict = this.peek(request);
    if (verdict === undefined) return undefined;
    return verdict.status === 'valid' ? verdict.tokenHash : NO_CREDENTIAL;
  }

  knownOwner(request: FastifyRequest): Principal | undefined {
    const verdict = this.peek(request);
    return verdict?.status === 'valid' ? verdict.principal : undefined;
  }

  vouchedFor(request: FastifyRequest): boolean {
    const header = request.headers.authorization;
    if (typeof header !== 'string') return false;
    return this.strategyFor(header)?.vouchesFor(header) ?? false;
  }

  async tokenHash(request: FastifyRequest): Promise<string> {
    const verdict = await this.resolve(request);
    return verdict.status === 'valid' ? verdict.tokenHash : NO_CREDENTIAL;
  }

  /**
   * Notes that a request used the credential (`last_used_at`, at most one write a minute). The auth guard calls
   * it when it admits one; the verdicts themselves never write, so the rate limiter's questions cost no I/O.
   */
  recordUse(principal: Principal): void {
    this.usage.touch(principal, this.clock.nowMs());
  }

  /**
   * Token introspection: what the credential `value` (a JWT or an API key, as it would stand in the header) is
   * worth now, by the same cache and look-ups as a request's, so a revocation notice makes it inactive here at
   * the moment it does for requests. `null`: not a live credential (unknown, malformed, revoked, expired).
   */
  async inspect(value: string): Promise<Extract<CachedCredential, { status: 'valid' }> | null> {
    if (value.trim() === '' || /^bearer\s/i.test(value)) return null;
    const entry = this.cache.get(value, this.clock.nowMs()) ?? (await this.lookUp(value));
    if (entry.status !== 'valid' || entry.expiresAtMs <= this.clock.nowMs()) return null;
    return entry;
  }

  /**
   * Ends a session found idle past its company's time-out (the auth guard's check), and tells every instance;
   * the request that found it is refused as any request of an ended session is.
   */
  async endIdle(principal: Principal, client: ClientInfo): Promise<void> {
    const ended = await this.strategies.ofKind(principal.kind)?.endIdle?.(principal, client, this.clock.now());
    if (ended) await this.bus.publish({ type: 'session', sessionId: principal.sessionId! });
  }

  /** When the principal's person last proved themselves (see {@link CredentialStrategy.provenAt}). */
  provenAt(principal: Principal): Promise<Date | null> {
    return this.strategies.ofKind(principal.kind)?.provenAt?.(principal) ?? Promise.resolve(null);
  }

  static hasQueryCredential(request: FastifyRequest): boolean {
    const query = request.query as Record<string, unknown> | undefined;
    return query !== undefined && query !== null && Object.hasOwn(query, QUERY_CREDENTIAL_PARAM);
  }

  private decideFromMemory(request: FastifyRequest): CredentialVerdict | undefined {
    if (CredentialService.hasQueryCredential(request)) return QUERY_NOT_ALLOWED;
    const header = request.headers.authorization;
    if (typeof header !== 'string' || header.trim() === '') return MISSING;
    if (/^bearer\s/i.test(header)) return NOT_FOUND;
    const nowMs = this.clock.nowMs();
    const entry = this.cache.get(header, nowMs);
    return entry === undefined ? undefined : this.verdictOf(entry, nowMs);
  }

  private verdictOf(entry: CachedCredential, nowMs: number): CredentialVerdict {
    if (entry.status !== 'valid') return entry.status === 'not_found' ? NOT_FOUND : BLACKLISTED;
    if (entry.expiresAtMs <= nowMs) return EXPIRED;
    // A valid entry has the verdict's shape (status, principal, tokenHash): no copy per request.
    return entry;
  }

  private async lookUpVerdict(header: string): Promise<CredentialVerdict> {
    const entry = await this.lookUp(header);
    return this.verdictOf(entry, this.clock.nowMs());
  }

  /** One look-up per credential at a time: later askers join the one in flight. */
  private lookUp(header: string): Promise<CachedCredential> {
    let pending = this.inFlight.get(header);
    if (pending === undefined) {
      const started = this.lookUpOnce(header);
      pending = started;
      this.inFlight.set(header, started);
      const settle = () => {
        // A revocation may have dropped this one and a newer look-up may hold the slot: leave that one be.
        if (this.inFlight.get(header) === started) this.inFlight.delete(header);
      };
      started.then(settle, settle);
    }
    return pending;
  }

  private async lookUpOnce(header: string): Promise<CachedCredential> {
    const epoch = this.epoch;
    const nowMs = this.clock.nowMs();
    const hash = sha256Hex(header);
    const strategy = this.strategyFor(header);
    let found: LookUpResult;
    try {
      found = strategy ? await strategy.lookUp(header, hash) : NOT_KEPT;
    } catch (error) {
      // The database did not answer. A credential verified before (and not revoked since: every revocation
      // notice, through Redis or in this process, evicts its entry, stale or not) keeps its answer; anything
      // else fails as before (503 while the database is away).
      const stale = epoch === this.epoch ? this.cache.getStale(header, this.clock.nowMs()) : undefined;
      if (stale !== undefined) return stale;
      throw error;
    }
    const entry = toEntry(found, hash, nowMs);
    // A revocation during the look-up may have made its answer stale: the requests that asked before the
    // revocation get it, the cache does not.
    if (entry.freshUntilMs > nowMs && epoch === this.epoch && header.length <= MAX_CACHED_HEADER_LENGTH) {
      this.cache.set(header, entry, this.clock.nowMs());
    }
    return entry;
  }

  private strategyFor(header: string): CredentialStrategy | undefined {
    return this.strategies.forHeader(header);
  }

  private forget(notice: RevocationNotice): void {
    if (notice.type === 'resync') {
      this.epoch++;
      this.inFlight.clear();
      this.cache.expireAll(this.clock.nowMs());
      return;
    }
    const matches = evictedBy(notice);
    if (matches === null) return;
    this.epoch++;
    this.inFlight.clear();
    this.cache.evictWhere(matches);
  }
}

function toEntry(found: LookUpResult, hash: string, nowMs: number): CachedCredential {
  const freshUntilMs = nowMs + CACHE_FRESHNESS_MS;
  if (found.status !== 'valid') return { status: found.status, freshUntilMs: found.keep ? freshUntilMs : 0 };
  return {
    status: 'valid',
    principal: found.principal,
    issuedAtMs: found.issuedAtMs,
    expiresAtMs: found.expiresAtMs,
    freshUntilMs,
    tokenHash: hash.slice(0, 16),
  };
}
