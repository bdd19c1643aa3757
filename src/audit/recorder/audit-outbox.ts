import { DiscoveryService } from '@nestjs/core';
import type { EntityManager } from 'typeorm';
import type { AuditEventJson } from './audit-event-json';
import { AuditEvent } from './audit-event.entity';
import { toAuditEventJson } from './audit-event-json';

/**
 * Where a feature that forwards events (security-event streams) plugs into the recorder without either folder
 * naming the other's tables: the recorder asks it for one more statement of the event's INSERT, so the event and
 * what must follow it are written by one statement of the change's transaction. A provider implementing it and
 * marked {@link AuditOutboxSink} is found by the recorder at start; src/audit/recorder/ imports nothing of it.
 */
export interface AuditOutbox {
  /**
   * A data-modifying statement to run as a CTE of the event INSERT. `inserted` names the CTE holding the new
   * rows as `(id, company_id, occurred_at)`.
   */
  fanOutSql(inserted: string): string;
  /** Called once the events' transaction has committed (or at once outside a transaction). */
  committed(events: AuditEventJson[]): void;
}

/** Marks a provider as an {@link AuditOutbox} that every recorded event is written through. */
export const AuditOutboxSink = DiscoveryService.createDecorator<void>();

/** The events of one company with these ids, oldest first, as the API shows them; an id no longer stored is left out. */
export async function loadAuditEvents(
  manager: EntityManager,
  companyId: number,
  ids: readonly string[],
): Promise<AuditEventJson[]> {
  if (ids.length === 0) return [];
  const rows = await manager
    .getRepository(AuditEvent)
    .createQueryBuilder('e')
    .where('e.companyId = :companyId AND e.id IN (:...ids)', { companyId, ids })
    .orderBy('e.id', 'ASC')
    .getMany();
  return rows.map(toAuditEventJson);
}
