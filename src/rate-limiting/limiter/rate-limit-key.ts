import type { FastifyRequest } from 'fastify';

/**
 * `X-Rate-Limit-Identifier` (docs/contract.md, "Rate limiting"): `{ip}|{METHOD}|{group}|{token hash}`, e.g.
 * `203.0.113.7|GET|products|9f86d081884c7d65`. The token hash is the credential's digest prefix or `-`, so the
 * identifier carries no secret and can be both a response header and a counter's name.
 */
export const rateLimitIdentifier = (request: FastifyRequest, group: string, tokenHash: string): string =>
  identifierOf(request.ip, request.method, group, tokenHash);

/** The same identifier for another method than the request's (the listing of GET /v1/ratelimits). */
export const identifierOf = (ip: string, method: string, group: string, tokenHash: string): string =>
  `${ip}|${method}|${group}|${tokenHash}`;

/** The counters-module key of a request's bucket: its identifier in the namespace of request buckets. */
export const counterKey = (identifier: string): string => `req:${identifier}`;
