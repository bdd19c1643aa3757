import type { FakeClock } from './fake-clock';

export interface Received {
  at: number;
  method: string;
  path: string;
  authorization: string | null;
  status: number;
}

export interface FakeServiceOptions {
  capacity?: number;
  windowMs?: number;
  /** How long a request takes to reach the handler (default 5 ms); per path when a function. */
  latencyMs?: number | ((path: string) => number);
  /** Also send `RateLimit-Policy` / `RateLimit` with this capacity (the IETF fields). */
  policyCapacity?: number;
  /** The group the answers name, whatever the path (a controller filed under another group). */
  group?: string;
  otpRequired?: boolean;
  /** A token expires this long after it is issued. */
  tokenLifetimeMs?: number;
  /** A company quota of `limit` authenticated requests per fixed window of `windowMs` (aligned to 0), any path. */
  quota?: { limit: number; windowMs: number };
  /** The concurrency cap: at most this many requests of one credential admitted and not yet answered. */
  concurrencyLimit?: number;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

/**
 * The service as far as the client cares, on a fake clock: GCRA buckets per method × group × credential with
 * the X-Rate-Limit-* headers and Retry-After of the real one, two-step login, refresh (which blacklists the
 * token it replaces), logout, expiry. It records every request it received and how many were in flight at once.
 */
export class FakeService {
  readonly received: Received[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private readonly tat = new Map<string, number>();
  private readonly quotaHits = new Map<number, number>();
  private tokens = new Map<string, { expiresAt: number; refresh: string; valid: boolean }>();
  private issued = 0;
  otpSeen: Array<string | undefined> = [];
  /** Answer error_jwt_expired for this token regardless of its expiry (the server's clock ahead of the client's). */
  expireEarly = new Set<string>();
  /** The next `count` requests are refused with this Retry-After (seconds), as if another client had filled the bucket. */
  refuseNext = { count: 0, retryAfter: 1 };
  /** Leases of every credential held by another process with the same credential (under the concurrency cap). */
  leasesElsewhere = 0;
  /** The most requests of one credential the cap has admitted at once (with `leasesElsewhere`). */
  maxLeases = 0;
  private readonly leases = new Map<string, number>();

  constructor(
    private readonly clock: FakeClock,
    private readonly options: FakeServiceOptions = {},
  ) {}

  readonly fetch = async (request: Request): Promise<Response> => {
    const credential = request.headers.get('authorization') ?? '-';
    const leases = (this.leases.get(credential) ?? 0) + this.leasesElsewhere;
    const cap = this.options.concurrencyLimit;
    if (cap !== undefined && leases >= cap) return this.overCap(request, cap);
    this.leases.set(credential, (this.leases.get(credential) ?? 0) + 1);
    this.maxLeases = Math.max(this.maxLeases, leases + 1);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const path = new URL(request.url).pathname;
      const latency = this.options.latencyMs ?? 5;
      await this.clock.sleep(typeof latency === 'number' ? latency : latency(path), request.signal);
      const response = await this.answer(request);
      this.received.push({
        at: this.clock.now(),
        method: request.method,
        path,
        authorization: request.headers.get('authorization'),
        status: response.status,
      });
      return response;
    } finally {
      this.inFlight--;
      this.leases.set(credential, this.leases.get(credential)! - 1);
    }
  };

  /**
   * A refusal by the concurrency cap, at once, as the service answers it: `Retry-After: 1`, the bucket's headers
   * (its bucket left as it was) and the `"concurrency"` members of the IETF fields.
   */
  private overCap(request: Request, cap: number): Response {
    const path = new URL(request.url).pathname;
    const group = this.options.group ?? path.split('/')[2] ?? '-';
    const credential = request.headers.get('authorization') ?? '-';
    const { headers } = this.limitHeaders(request.method, group, credential, false);
    const name = `"${request.method.toLowerCase()}-${group}"`;
    const policy = headers['ratelimit-policy'] ?? `${name};q=${this.options.capacity ?? 30};w=3`;
    const state = headers.ratelimit ?? `${name};r=${headers['x-rate-limit-remaining']};t=1`;
    headers['ratelimit-policy'] = `${policy}, "concurrency";q=${cap}`;
    headers.ratelimit = `${state}, "concurrency";r=0`;
    headers['retry-after'] = '1';
    const status = 429;
    const authorization = request.headers.get('authorization');
    this.received.push({ at: this.clock.now(), method: request.method, path, authorization, status });
    this.concurrencyRefusals++;
    return json(status, ['error_rate_limit_exceed'], headers);
  }

  /** Requests the concurrency cap refused. */
  concurrencyRefusals = 0;

  count(status: number): number {
    return this.received.filter((request) => request.status === status).length;
  }

  issue(): { jwt: string; refresh_token: string; expires_at: string } {
    const jwt = `jwt-${++this.issued}`;
    const expiresAt = this.clock.now() + (this.options.tokenLifetimeMs ?? 14 * 86_400_000);
    this.tokens.set(jwt, { expiresAt, refresh: `refresh-${this.issued}`, valid: true });
    return { jwt, refresh_token: `refresh-${this.issued}`, expires_at: new Date(expiresAt).toISOString() };
  }

  private async answer(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    const segment = path.split('/')[2] ?? '-';
    const group = this.options.group ?? segment;
    const credential = request.headers.get('authorization') ?? '-';
    const limit = this.limitHeaders(request.method, group, credential);
    if (limit.refused) return json(429, ['error_rate_limit_exceed'], limit.headers);
    const body = (request.body ? await request.json() : {}) as Record<string, string | undefined>;
    const h = limit.headers;
    const login = () => ({ ...this.issue(), session_id: 's', company: { id: 1, name: 'Co' }, employee: { id: 1 } });
    if (path === '/v1/users/authenticateinit') {
      return json(200, { companies: [{ id: 1, name: 'Co' }], otp_required: !!this.options.otpRequired }, h);
    }
    if (path === '/v1/users/authenticatefinish') {
      this.otpSeen.push(body.otp);
      if (this.options.otpRequired && body.otp !== '123456') return json(401, { error: ['error_otp_required'] }, h);
      return json(200, login(), h);
    }
    if (path === '/v1/users/refreshtoken') {
      const entry = [...this.tokens.entries()].find(([, token]) => token.refresh === body.refresh_token);
      if (!entry || !entry[1].valid) return json(401, { error: ['error_refresh_token_invalid'] }, h);
      if (entry[1].expiresAt <= this.clock.now()) return json(400, { error: ['error_jwt_expired'] }, h);
      entry[1].valid = false;
      return json(200, login(), h);
    }
    const token = this.tokens.get(credential);
    if (!token) return json(401, { error: ['error_jwt_hash_not_found'] }, h);
    if (!token.valid) return json(400, { error: ['error_jwt_blacklisted'] }, h);
    if (token.expiresAt <= this.clock.now() || this.expireEarly.has(credential)) {
      return json(400, { error: ['error_jwt_expired'] }, h);
    }
    if (path === '/v1/users/logout') {
      token.valid = false;
      return json(204, null, h);
    }
    if (this.options.quota) {
      const { limit, windowMs } = this.options.quota;
      const start = Math.floor(this.clock.now() / windowMs) * windowMs;
      const hits = (this.quotaHits.get(start) ?? 0) + 1;
      this.quotaHits.set(start, hits);
      const t = Math.ceil((start + windowMs - this.clock.now()) / 1000);
      h.ratelimit = `"hour";r=${Math.max(0, limit - hits)};t=${t}`;
      if (hits > limit) return json(429, ['error_rate_limit_exceed'], { ...h, 'retry-after': String(t) });
    }
    return json(200, { data: [], page: 1, per_page: 20, total: 0 }, h);
  }

  /** The bucket's headers; `charge` false: only described (a request the concurrency cap refused). */
  private limitHeaders(method: string, group: string, credential: string, charge = true) {
    const capacity = this.options.capacity ?? 30;
    const windowMs = this.options.windowMs ?? 3000;
    const interval = windowMs / capacity;
    const key = `${method}|${group}|${credential}`;
    const now = this.clock.now();
    const tat = Math.max(this.tat.get(key) ?? now, now);
    const forced = charge && this.refuseNext.count > 0;
    if (forced) this.refuseNext.count--;
    const refused = forced || tat + interval - now > windowMs;
    if (!refused && charge) this.tat.set(key, tat + interval);
    const level = (refused || !charge ? tat : tat + interval) - now;
    const remaining = Math.max(0, Math.floor((windowMs - level) / interval));
    const headers: Record<string, string> = {
      'x-rate-limit-limit': String(capacity),
      'x-rate-limit-remaining': String(remaining),
      'x-rate-limit-identifier': `127.0.0.1|${method}|${group}|${credential.slice(0, 6)}`,
    };
    if (this.options.policyCapacity) {
      const name = `"${method.toLowerCase()}-${group}"`;
      headers['ratelimit-policy'] = `${name};q=${this.options.policyCapacity};w=${windowMs / 1000}`;
      headers.ratelimit = `${name};r=${Math.min(remaining, this.options.policyCapacity)};t=1`;
    }
    if (refused) {
      const wait = forced ? this.refuseNext.retryAfter * 1000 : tat + interval - windowMs - now;
      headers['retry-after'] = String(Math.max(1, Math.ceil(wait / 1000)));
    }
    return { refused, headers };
  }
}
