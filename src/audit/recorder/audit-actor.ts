import type { ClientInfo } from '../../platform/common/http/client-info';
import type { AuditActor, AuditEventInput } from './audit-event';

/** The operator CLI: no account stands behind it. */
export const OPERATOR: AuditActor = { kind: 'operator', id: null, email: null };

/** Someone not yet identified (a login attempt, a stolen refresh token presented again). */
export const ANONYMOUS: AuditActor = { kind: 'anonymous', id: null, email: null };

/** What the audit trail needs of a verified credential (structurally a Principal). */
export interface CredentialHolder {
  kind: 'jwt' | 'api_key';
  employeeId: number;
  credentialId: string;
  sessionId: string | null;
  employee: { email: string };
}

/** An API key acts as itself (its id), with its owner's e-mail so a reader knows whose key it is. */
export function actorOf(holder: CredentialHolder): AuditActor {
  return holder.kind === 'api_key'
    ? { kind: 'api_key', id: holder.credentialId, email: holder.employee.email }
    : { kind: 'employee', id: holder.employeeId, email: holder.employee.email };
}

/** Actor, session and client of a request made with a credential: the parts every event of it shares. */
export function requestContext(
  holder: CredentialHolder,
  client: ClientInfo | null,
): Pick<AuditEventInput, 'actor' | 'sessionId' | 'ip' | 'userAgent'> {
  return {
    actor: actorOf(holder),
    sessionId: holder.sessionId,
    ip: client?.ip ?? null,
    userAgent: client?.userAgent ?? null,
  };
}
