import { randomUUID } from 'node:crypto';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { AppConfig } from '../../platform/config/app-config';
import { clientErrorHandler, frameworkErrors } from './edge-errors';

/** JSON bodies over this answer 413 `error_payload_too_large` (docs/contract.md). */
export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

const INCOMING_REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

/**
 * Fastify, not Express: on this machine it serves ~6x the requests per second, and the adapter is the largest
 * single cost on the per-request path.
 */
export function createHttpAdapter(config: AppConfig): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: JSON_BODY_LIMIT_BYTES,
    trustProxy: config.trustProxy === false ? false : config.trustProxy,
    // A caller's X-Request-Id is kept when it looks like an id, so a trace can cross services.
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && INCOMING_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    requestIdHeader: false,
    // Closing idle keep-alive sockets lets a SIGTERM finish quickly while in-flight requests complete.
    forceCloseConnections: 'idle',
    // Answers decided before any route runs, in the contract's shape rather than Fastify's (edge-errors.ts);
    // the 503 while shutting down comes from the edge hooks, which start refusing before Fastify closes.
    clientErrorHandler,
    frameworkErrors,
    return503OnClosing: false,
  });
}

/**
 * Options for every Nest application of the service. Nest's own body parsing is off: Fastify parses JSON by
 * itself, and Nest would otherwise add a form-urlencoded parser that lets non-JSON bodies reach handlers.
 */
export const NEST_APP_OPTIONS = { bodyParser: false, abortOnError: false } as const;
