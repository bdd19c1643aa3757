import { Injectable } from '@nestjs/common';
import type { AuditEventJson } from '../recorder/audit-event-json';
import { type AuditOutbox, AuditOutboxSink } from '../recorder/audit-outbox';

/**
 * The outbox half of security-event streams: every event recorded gets one `event_stream_outbox` row per active
 * stream of its company, in the same statement as the event (so the same transaction: a change rolled back
 * leaves neither). A company without a stream pays one probe of the `event_stream_company` index inside the
 * statement it runs anyway, no round trip. Marked, so the audit recorder finds it at start.
 */
@AuditOutboxSink()
@Injectable()
export class StreamOutbox implements AuditOutbox {
  private readonly listeners: Array<() => void> = [];

  fanOutSql(inserted: string): string {
    return `INSERT INTO event_stream_outbox (stream_id, event_id, created_at)
            SELECT s.id, i.id, i.occurred_at
              FROM ${inserted} i JOIN event_stream s ON s.company_id = i.company_id AND s.state = 'active'
             ORDER BY i.id`;
  }

  /** Events committed here: the local deliverer need not wait for its next poll. */
  committed(_events: AuditEventJson[]): void {
    for (const listener of this.listeners) listener();
  }

  onCommitted(listener: () => void): void {
    this.listeners.push(listener);
  }
}
