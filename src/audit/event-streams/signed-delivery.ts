import { performance } from 'node:perf_hooks';
import type { Webhook } from 'standardwebhooks';
import type { AuditEventJson } from '../recorder/audit-event-json';
import type { AttemptRow, ClaimedStream } from './stream-records';
import type { PostOutcome } from './stream-target';

/** The Standard Webhooks message id: the same for every attempt of one event to one stream, so duplicates share it. */
export function webhookIdOf(streamId: string, eventId: string): string {
  return `evt_${eventId}_${streamId.slice(0, 8)}`;
}

/**
 * One attempt to deliver `event`: the body is Standard Webhooks' `{type, timestamp, data}` with the event as the
 * API shows it, signed over `webhook-id`, `webhook-timestamp` (`now`) and the exact bytes sent.
 */
export async function deliverSigned(
  stream: ClaimedStream,
  webhook: Webhook,
  event: AuditEventJson,
  now: Date,
  post: (url: string, headers: Record<string, string>, body: string) => Promise<PostOutcome>,
): Promise<AttemptRow> {
  const webhookId = webhookIdOf(stream.id, event.id);
  const body = JSON.stringify({ type: event.type, timestamp: event.occurred_at, data: event });
  const headers = {
    'webhook-id': webhookId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': webhook.sign(webhookId, now, body),
  };
  const started = performance.now();
  const outcome = await post(stream.url, headers, body);
  return {
    eventId: event.id,
    webhookId,
    attemptedAt: now,
    status: outcome.status,
    outcome: outcome.ok ? 'delivered' : 'failed',
    error: outcome.error,
    durationMs: Math.round(performance.now() - started),
  };
}
