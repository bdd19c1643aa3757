import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppMetrics } from './app-metrics';

/**
 * Counts and times one answer, those decided before routing included. Called as the answer is handed to Node
 * (onSend), timed from `request.startedAt` (set by the onRequest hook, bootstrap/request-hooks.ts): an onResponse
 * hook would also count the write, but makes Fastify attach two listeners and read the clock twice more on every
 * response.
 */
export function recordHttpMetrics(appMetrics: AppMetrics, request: FastifyRequest, reply: FastifyReply): void {
  const { startedAt } = request;
  appMetrics.httpRequest(
    request.method,
    request.routeOptions.url,
    reply.statusCode,
    // 0: the request never reached onRequest (a URL Fastify could not route); its time is unknown, not huge.
    startedAt > 0 ? (performance.now() - startedAt) / 1000 : 0,
  );
}
