import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

export type StreamState = 'active' | 'paused';

/**
 * A company's receiver of its security events. `secret` (`whsec_…`, every delivery is signed with it) is stored
 * sealed by StreamSecretBox; rows from before were re-sealed at start (STREAM_SECRETS in stream-records.ts).
 */
@Entity({ name: 'event_stream' })
export class EventStream {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'company_id', type: 'integer' })
  companyId: number;

  @Column({ type: 'text' })
  url: string;

  @Column({ type: 'text' })
  secret: string;

  @Column({ type: 'text' })
  state: StreamState;

  /** The first failure of the current run of failures; null while deliveries succeed. */
  @Column({ name: 'failing_since', type: 'timestamptz', nullable: true })
  failingSince: Date | null;

  @Column({ type: 'integer', default: 0 })
  failures: number;

  /** No delivery before this (backoff after a failure). */
  @Column({ name: 'retry_at', type: 'timestamptz', nullable: true })
  retryAt: Date | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @Column({ name: 'paused_at', type: 'timestamptz', nullable: true })
  pausedAt: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

/** One event still to deliver to one stream. */
@Entity({ name: 'event_stream_outbox' })
export class EventStreamOutboxRow {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'BY DEFAULT' })
  id: string;

  @Column({ name: 'stream_id', type: 'uuid' })
  streamId: string;

  @Column({ name: 'event_id', type: 'bigint' })
  eventId: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

/** One delivery attempt, kept for the deliveries list (the receiver's answer only as a short error). */
@Entity({ name: 'event_stream_delivery' })
export class EventStreamDelivery {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'BY DEFAULT' })
  id: string;

  @Column({ name: 'stream_id', type: 'uuid' })
  streamId: string;

  @Column({ name: 'event_id', type: 'bigint' })
  eventId: string;

  @Column({ name: 'webhook_id', type: 'text' })
  webhookId: string;

  @Column({ name: 'attempted_at', type: 'timestamptz' })
  attemptedAt: Date;

  @Column({ type: 'integer', nullable: true })
  status: number | null;

  @Column({ type: 'text' })
  outcome: 'delivered' | 'failed';

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs: number;
}
