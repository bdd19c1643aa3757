import { Injectable } from '@nestjs/common';
import { Counter, Gauge, type Metric, Registry, collectDefaultMetrics } from 'prom-client';

export type LoginOutcome = 'success' | 'invalid_credentials' | 'locked' | 'not_member';
/** How the person proved who they are (docs/contract.md, sessions' `method`; SSO adds its own). */
export type LoginMetricMethod = 'password' | 'passkey';
const LOGIN_METRIC_METHODS: readonly LoginMetricMethod[] = ['password', 'passkey'];

/** A figure a component already keeps, read when scraped: it registers it with {@link AppMetrics.readGauge}. */
export interface ReadFigure {
  name: string;
  help: string;
  read: () => number;
}

/**
 * The default process metrics (CPU, memory, event loop, GC): one set per process, whatever the number of
 * applications in it. prom-client's collectors start event-loop and GC observers that are never stopped, so
 * they are registered once, on first use, and every application's scrape includes them.
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * The service's Prometheus metrics (docs/contract.md, Operations), counted where they happen through one-line calls.
 * One per application (a provider of the global MetricsRegistryModule): two applications in one process (tests
 * run two instances side by side) each report their own. A component that keeps a figure anyway (the credential
 * cache, the rate-limit storage, the query counter) registers it here itself, read at scrape time.
 *
 * Cost on the request path: a request adds to plain numbers of its label set (a string key and a Map lookup);
 * prom-client only sees them when scraped. Its own counters and histograms hash and validate the labels on
 * every increment, which on the hottest route cost more than the rate-limit check itself.
 */
@Injectable()
export class AppMetrics {
  readonly registry = new Registry();

  private readonly http = new Map<string, HttpSeries>();
  private readonly decisions = new Map<string, { allowed: number; limited: number; shadow: number }>();

  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
    collect: () => {
      this.requests.reset();
      for (const series of this.http.values()) this.requests.inc(series.labels, series.count);
    },
  });
  private readonly rateLimitDecisions = new Counter({
    name: 'rate_limit_decisions_total',
    help:
      'Request rate-limit checks, by API group and outcome (allowed | limited | shadow_limited: admitted, but a ' +
      'shadow override would have refused it).',
    labelNames: ['group', 'outcome'] as const,
    registers: [this.registry],
    collect: () => {
      this.rateLimitDecisions.reset();
      for (const [group, counts] of this.decisions) {
        this.rateLimitDecisions.inc({ group, outcome: 'allowed' }, counts.allowed);
        this.rateLimitDecisions.inc({ group, outcome: 'limited' }, counts.limited);
        if (counts.shadow > 0) this.rateLimitDecisions.inc({ group, outcome: 'shadow_limited' }, counts.shadow);
      }
    },
  });
  private readonly logins = new Counter({
    name: 'auth_logins_total',
    help:
      'Login attempts by outcome: invalid_credentials and locked on either login step, success and not_member ' +
      'on authenticatefinish; method: password or passkey (how the person proved who they are).',
    labelNames: ['outcome', 'method'] as const,
    registers: [this.registry],
  });
  private readonly revocations = new Counter({
    name: 'auth_revocations_total',
    help: 'Revocations published by this instance, by what was revoked (session, token, api_key, membership).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  private readonly authEvents = new Counter({
    name: 'auth_events_total',
    help:
      'Security events by type (docs/contract.md, "Security events"): counted once committed; a login attempt for an ' +
      'e-mail with no account is counted here only.',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  constructor() {
    this.registry.registerMetric(durationHistogram(this.http) as unknown as Metric);
    // Every login outcome is present from the start, so a rate() over it has a baseline.
    for (const outcome of ['success', 'invalid_credentials', 'locked', 'not_member'] as const) {
      for (const method of LOGIN_METRIC_METHODS) this.logins.inc({ outcome, method }, 0);
    }
  }

  /** `route`: the route template (`/v1/products/:id`), never the raw path; unknown routes share one label. */
  httpRequest(method: string, route: string | undefined, status: number, seconds: number): void {
    const key = `${method} ${route ?? UNMATCHED_ROUTE} ${status}`;
    let series = this.http.get(key);
    if (series === undefined) {
      series = new HttpSeries({ method, route: route ?? UNMATCHED_ROUTE, status: String(status) });
      this.http.set(key, series);
    }
    series.observe(seconds);
  }

  /** `identifier`: the X-Rate-Limit-Identifier, `{ip}|{METHOD}|{group}|{token hash}`; the group is its third part. */
  /** `shadowLimited`: admitted, but an override in shadow mode would have refused it (counted instead of allowed). */
  rateLimitDecision(identifier: string, limited: boolean, shadowLimited = false): void {
    const methodEnd = identifier.indexOf('|', identifier.indexOf('|') + 1);
    const groupEnd = identifier.indexOf('|', methodEnd + 1);
    const group =
      methodEnd === -1 ? 'unknown' : identifier.slice(methodEnd + 1, groupEnd === -1 ? undefined : groupEnd);
    let counts = this.decisions.get(group);
    if (counts === undefined) {
      counts = { allowed: 0, limited: 0, shadow: 0 };
      this.decisions.set(group, counts);
    }
    if (limited) counts.limited++;
    else if (shadowLimited) counts.shadow++;
    else counts.allowed++;
  }

  login(outcome: LoginOutcome, method: LoginMetricMethod = 'password'): void {
    this.logins.inc({ outcome, method });
  }

  authEvent(type: string): void {
    this.authEvents.inc({ type });
  }

  revocation(reason: string): void {
    this.revocations.inc({ reason });
  }

  /** A counter whose value is kept by its owner (it only ever grows there) and read when scraped. */
  readCounter({ name, help, read }: ReadFigure): void {
    new Counter({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(Math.max(0, read()));
      },
    });
  }

  /** A gauge whose value is kept by its owner and read when scraped. */
  readGauge({ name, help, read }: ReadFigure): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  /** The Prometheus text exposition: the process's default metrics, then this application's own. */
  async scrape(): Promise<string> {
    return `${await processMetrics().metrics()}\n${await this.registry.metrics()}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The answers of one method, route template and status: a count, and their durations as histogram buckets. */
class HttpSeries {
  count = 0;
  sum = 0;
  /** Observations per bucket (not cumulative); the last slot is above the largest bound. */
  readonly buckets = new Array<number>(DURATION_BUCKETS.length + 1).fill(0);

  constructor(readonly labels: { method: string; route: string; status: string }) {}

  observe(seconds: number): void {
    this.count++;
    this.sum += seconds;
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]) bucket++;
    this.buckets[bucket]++;
  }
}

/**
 * `http_request_duration_seconds` as prom-client's registry prints a histogram (cumulative `_bucket` lines with
 * `le` first, then `_sum` and `_count`), read from the series' plain numbers at scrape time.
 */
function durationHistogram(series: Map<string, HttpSeries>) {
  const name = 'http_request_duration_seconds';
  const help = 'Time from the request arriving to the response being sent, by method, route template and status.';
  const values = () => {
    const lines: {
      labels: Record<string, string | number>;
      sharedLabels: object;
      value: number;
      metricName: string;
    }[] = [];
    for (const { labels, buckets, sum, count } of series.values()) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((bound, i) => {
        cumulative += buckets[i];
        lines.push({ labels: { le: bound }, sharedLabels: labels, value: cumulative, metricName: `${name}_bucket` });
      });
      lines.push({ labels: { le: '+Inf' }, sharedLabels: labels, value: count, metricName: `${name}_bucket` });
      lines.push({ labels: {}, sharedLabels: labels, value: sum, metricName: `${name}_sum` });
      lines.push({ labels: {}, sharedLabels: labels, value: count, metricName: `${name}_count` });
    }
    return lines;
  };
  return {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get: async () => ({ name, help, type: 'histogram', aggregator: 'sum', values: values() }),
    reset: () => series.clear(),
  };
}

/** The `route` label of requests that matched no route (404s for made-up paths), so raw paths never become labels. */
export const UNMATCHED_ROUTE = 'unmatched';
