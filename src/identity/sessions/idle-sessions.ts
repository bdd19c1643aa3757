import type { DataSource } from 'typeorm';
import { requestContext } from '../../audit/recorder/audit-actor';
import type { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import type { Principal } from '../../access/rules/principal';
import type { ClientInfo } from '../../platform/common/http/client-info';

/**
 * docs/contract.md "Company policies and roles", `idle_timeout_minutes`: a session unused that long ends, with
 * its tokens, and `session.revoked` (`details.reason: "idle"`) records it once however many requests found it
 * idle at the same moment (the conditional UPDATE lets one through). Answers whether this call ended it.
 */
export async function endIdleSession(
  dataSource: DataSource,
  audit: AuditRecorder,
  principal: Principal,
  client: ClientInfo,
  now: Date,
): Promise<boolean> {
  return dataSource.transaction(async (manager) => {
    const ended = await manager.query<Array<{ id: string }>>(
      `WITH ended AS (
         UPDATE login_session SET ended_at = $2, end_reason = 'idle' WHERE id = $1 AND ended_at IS NULL RETURNING id)
       SELECT id FROM ended`,
      [principal.sessionId, now],
    );
    if (ended.length === 0) return false;
    await manager.query(
      `UPDATE issued_token SET revoked_at = $2, revoke_reason = 'idle' WHERE session_id = $1 AND revoked_at IS NULL`,
      [principal.sessionId, now],
    );
    await audit.record(manager, {
      type: 'session.revoked',
      companyId: principal.companyId,
      ...requestContext(principal, client),
      subject: { kind: 'session', id: principal.sessionId!, email: principal.employee.email },
      details: { reason: 'idle' },
    });
    return true;
  });
}
