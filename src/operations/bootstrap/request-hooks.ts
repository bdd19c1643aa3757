import type { FastifyInstance } from 'fastify';
import type { AppMetrics } from '../../platform/common/metrics/app-metrics';
import { recordHttpMetrics } from '../../platform/common/metrics/http-metrics';
import type { RateLimitHeaders } from '../../rate-limiting/limiter/rate-limit-headers';
import type { LoadShedder } from '../shedding/load-shedder';
import type { CorsPolicy } from './cors';
import { answeredAtEdge, closeIfBodyUnread, refuseWhileClosing } from './edge-errors';
import { enterFirstLane } from '../../platform/database/query-lane';

function firstLanePreHandler(_request: unknown, _reply: unknown, done: () => void): void {
  enterFirstLane();
  done();
}

declare module 'fastify' {
  interface FastifyRequest {
    /** `performance.now()` when the request arrived, for http_request_duration_seconds. */
    startedAt: number;
  }
}

/**
 * Every per-request concern that is not a route's own, in one onRequest and one onSend hook: the request id,
 * the answers decided before routing (503 while closing, 414), CORS, shedding load (503 while saturated), the connection handling of answers sent
 * before the body was read, the HTTP metrics and the rate-limit headers of requests no guard saw.
 *
 * One hook of each kind rather than one per concern: each further hook is another step of Fastify's hook
 * runner on every request, and an onResponse hook (the natural place for metrics) makes Fastify attach two
 * listeners and read the clock twice more per response. The concerns stay in their own modules; this only
 * decides the order they run in.
 */
export function installRequestHooks(
  fastify: FastifyInstance,
  parts: {
    cors: CorsPolicy | undefined;
    rateLimitHeaders: RateLimitHeaders;
    metrics: AppMetrics;
    shedder: LoadShedder;
  },
): void {
  const { cors, rateLimitHeaders, metrics, shedder } = parts;
  fastify.decorateRequest('startedAt', 0);
  refuseWhileClosing(fastify);

  fastify.addHook('onRequest', (request, reply, done) => {
    request.startedAt = performance.now();
    reply.header('x-request-id', request.id);
    // docs/contract.md "Error bodies": every answer, so no browser ever sniffs a JSON body into something else.
    reply.header('x-content-type-options', 'nosniff');
    if (answeredAtEdge(fastify, request, reply)) return;
    if (cors !== undefined && cors(request, reply)) return;
    // Shedding load: before any work for the request (after CORS, so a browser can read the 503).
    if (shedder.shedding(request, reply)) return;
    done();
  });

  // The routes whose requests must get through an overload wait in the database's first lane: a preHandler of
  // their own (after the body is read, so the lane holds for the handler's work), and no step for any other route.
  fastify.addHook('onRoute', (route) => {
    if (![route.method].flat().some((method) => shedder.goesFirst(method, route.url))) return;
    route.preHandler = [...[route.preHandler ?? []].flat(), firstLanePreHandler];
  });

  fastify.addHook('onSend', (request, reply, payload, done) => {
    shedder.settle(request);
    closeIfBodyUnread(request, reply);
    recordHttpMetrics(metrics, request, reply);
    const filling = rateLimitHeaders.fillIn(request, reply);
    if (filling === undefined) return done(null, payload);
    filling.then(
      () => done(null, payload),
      () => done(null, payload),
    );
  });
}
