import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter } from 'prom-client';
import { LOAD_PRIORITIES, type LoadPriority } from '../../access/rules/load-priority.decorator';
import type { ErrorBody } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import { RoutePlans } from '../../platform/common/http/route-plan';
import { AppMetrics } from '../../platform/common/metrics/app-metrics';
import { AppConfig } from '../../platform/config/app-config';
import { EventLoopLag } from './event-loop-lag';
import { RoutePriorities } from './route-priorities';
import { type LagSource, SaturationDetector } from './saturation';

/** The event loop's delay the shedder reads: an {@link EventLoopLag}, or a test's own. */
export const LAG_SOURCE = Symbol('LAG_SOURCE');

/** Seconds a shed request's client is asked to wait. */
export const SHED_RETRY_AFTER_SECONDS = 1;

const SHED_BODY: ErrorBody = {
  error: [ErrorCode.ServiceUnavailable],
  message: 'The service is overloaded; try again shortly.',
};
const SHED_PAYLOAD = JSON.stringify(SHED_BODY);

/** Set on an admitted request's raw message until its place in flight is given back. */
const IN_FLIGHT = Symbol('inFlight');

/**
 * Shedding load (docs/contract.md, "Beyond the bucket"): called by the onRequest hook (bootstrap/request-hooks.ts)
 * before anything else is done for a request. While the instance is not saturated it only counts the request in
 * flight; once it is, the route's priority (compiled once per route) decides: the least important requests are
 * answered 503 `error_service_unavailable` with `Retry-After`, and counted in `http_requests_shed_total{priority}`.
 */
@Injectable()
export class LoadShedder implements OnApplicationBootstrap, OnModuleDestroy {
  readonly detector: SaturationDetector;
  private priorities: RoutePriorities | undefined;
  private readonly shed = new Map<LoadPriority, number>(LOAD_PRIORITIES.map((priority) => [priority, 0]));
  private readonly countsInFlight: boolean;
  /** The listener of every admitted response's 'close' ({@link closed}): one function, not a closure each. */
  private readonly release: (this: ServerResponse) => void;

  constructor(
    config: AppConfig,
    private readonly plans: RoutePlans,
    metrics: AppMetrics,
    @Inject(LAG_SOURCE) private readonly lag: LagSource,
  ) {
    this.detector = new SaturationDetector(
      { maxInFlight: config.shedMaxInFlight, maxEventLoopDelayMs: config.shedMaxEventLoopDelayMs },
      lag,
    );
    this.countsInFlight = config.shedMaxInFlight > 0;
    const closed = (raw: IncomingMessage) => this.closed(raw);
    this.release = function (this: ServerResponse) {
      closed(this.req);
    };
    if (config.shedMaxEventLoopDelayMs > 0 && lag instanceof EventLoopLag) lag.start();
    const counts = this.shed;
    new Counter({
      name: 'http_requests_shed_total',
      help:
        'Requests answered 503 because the instance was saturated, by priority (health | revocation | sign_in | ' +
        'read | write; the least important are shed first).',
      labelNames: ['priority'] as const,
      registers: [metrics.registry],
      collect() {
        this.reset();
        for (const [priority, count] of counts) this.inc({ priority }, count);
      },
    });
  }

  /** True when it answered the request (shed it); otherwise the request is admitted and counted in flight. */
  shedding(request: FastifyRequest, reply: FastifyReply): boolean {
    if (this.detector.saturated()) {
      const priority = this.priorityOf(request);
      if (this.detector.sheds(priority)) {
        this.shed.set(priority, this.shed.get(priority)! + 1);
        void reply
          .code(503)
          .header('retry-after', String(SHED_RETRY_AFTER_SECONDS))
          .header('content-type', 'application/json; charset=utf-8')
          .send(SHED_PAYLOAD);
        return true;
      }
    }
    if (this.countsInFlight) {
      this.detector.enter();
      (request.raw as IncomingMessage & { [IN_FLIGHT]?: boolean })[IN_FLIGHT] = true;
      reply.raw.on('close', this.release);
    }
    return false;
  }

  /**
   * A response closed. A request whose body never finished arriving reached no handler: its place is given back
   * now. Any other keeps its place until its answer is sent ({@link settle}), even if its client has gone: its
   * work goes on, and counting it as over would let the next requests pile onto it.
   */
  private closed(raw: IncomingMessage & { [IN_FLIGHT]?: boolean }): void {
    if (raw[IN_FLIGHT] === true && !raw.complete) {
      raw[IN_FLIGHT] = false;
      this.detector.leave();
    }
  }

  /** The onSend hook: the request's answer is ready, its work is over; its place is given back (once). */
  settle(request: FastifyRequest): void {
    const raw = request.raw as IncomingMessage & { [IN_FLIGHT]?: boolean };
    if (raw[IN_FLIGHT] === true) {
      raw[IN_FLIGHT] = false;
      this.detector.leave();
    }
  }

  /**
   * Whether a route's requests go in the database's first lane (query-lane.ts): health, logout and revocations,
   * logins. Asked once per route, as Fastify registers it.
   */
  goesFirst(method: string, url: string): boolean {
    this.priorities ??= this.compile();
    const priority = this.priorities.of(method, url);
    return priority === 'health' || priority === 'revocation' || priority === 'sign_in';
  }

  /** Requests shed so far, by priority. */
  shedCounts(): Record<LoadPriority, number> {
    return Object.fromEntries(this.shed) as Record<LoadPriority, number>;
  }

  /** Only asked once the instance is saturated: an idle instance never reads a request's route. */
  private priorityOf(request: FastifyRequest): LoadPriority {
    this.priorities ??= this.compile();
    return this.priorities.of(request.method, request.routeOptions.url);
  }

  private compile(): RoutePriorities {
    return new RoutePriorities([...this.plans.all()].map((plan) => plan.route));
  }

  /** Every route's priority, once, at start. */
  onApplicationBootstrap(): void {
    this.priorities ??= this.compile();
  }

  onModuleDestroy(): void {
    if (this.lag instanceof EventLoopLag) this.lag.stop();
  }
}
