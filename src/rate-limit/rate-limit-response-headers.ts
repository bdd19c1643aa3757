import type { FastifyReply } from 'fastify';

export const LIMIT_HEADER = 'x-rate-limit-limit';
export const REMAINING_HEADER = 'x-rate-limit-remaining';
export const IDENTIFIER_HEADER = 'x-rate-limit-identifier';

/**
 * The X-Rate-Limit-* headers (docs/contract.md, "Rate limiting") of one answer: the capacity the counter applied
 * (while Redis is away, this instance's share), what still fits at once, and which counter it was.
 */
export function setRateLimitHeaders(reply: FastifyReply, applied: number, used: number, identifier: string): void {
  reply.header(LIMIT_HEADER, applied);
  reply.header(REMAINING_HEADER, Math.max(0, applied - used));
  reply.header(IDENTIFIER_HEADER, identifier);
}
