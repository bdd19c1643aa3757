import type { FastifyInstance } from 'fastify';
import { appMetrics } from './app-metrics';

/**
 * Counts and times every answer, those decided before routing included, in one onResponse hook: after the
 * response is sent, so it adds nothing to the latency the client sees.
 */
export function recordHttpMetrics(fastify: FastifyInstance): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    appMetrics.httpRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
