import type { Principal } from './principal';
import type { ClientInfo } from '../../common/http/client-info';
import type { AuditActor, AuditEventInput } from '../../audit/audit-event';

/** The actor of an event done through a verified credential (an employee's JWT, or one of its API keys). */
export function actorOf(principal: Principal): AuditActor {
  return principal.kind === 'jwt'
    ? { kind: 'employee', id: principal.employeeId, email: principal.employee.email }
    : { kind: 'api_key', id: principal.credentialId, email: principal.employee.email };
}

/** The parts of an event that say who did it, from where, in which company. */
export function eventContext(
  principal: Principal,
  client: ClientInfo | null,
): Pick<AuditEventInput, 'companyId' | 'actor' | 'sessionId' | 'ip' | 'userAgent'> {
  return {
    companyId: principal.companyId,
    actor: actorOf(principal),
    sessionId: principal.sessionId,
    ip: client?.ip ?? null,
    userAgent: client?.userAgent ?? null,
  };
}
