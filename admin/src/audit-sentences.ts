/** Security events (docs/contract.md, "Security events") as the Activity screen reads them out. */

export interface AuditPerson {
  kind: string;
  id: number | string | null;
  email: string | null;
}

export interface AuditEvent {
  id: string;
  occurred_at: string;
  type: string;
  company_id: number;
  actor: AuditPerson;
  subject: (AuditPerson & { id: number | string }) | null;
  session_id: string | null;
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
}

/** The filter's choices, in the order people look for them. */
export const EVENT_TYPES: Array<{ type: string; label: string }> = [
  { type: 'login.succeeded', label: 'Logins' },
  { type: 'login.failed', label: 'Failed logins' },
  { type: 'token.refreshed', label: 'Login renewals' },
  { type: 'session.logged_out', label: 'Logouts' },
  { type: 'session.revoked', label: 'Sessions ended' },
  { type: 'session.refresh_reuse', label: 'Stolen refresh tokens' },
  { type: 'company.switched', label: 'Company switches' },
  { type: 'permissions.changed', label: 'Permission changes' },
  { type: 'membership.added', label: 'People added' },
  { type: 'membership.removed', label: 'People removed' },
  { type: 'employee.created', label: 'Accounts created' },
  { type: 'apikey.created', label: 'API keys created' },
  { type: 'apikey.revoked', label: 'API keys revoked' },
  { type: 'invitation.created', label: 'Invitations sent' },
  { type: 'invitation.accepted', label: 'Invitations accepted' },
  { type: 'invitation.revoked', label: 'Invitations revoked' },
  { type: 'password.changed', label: 'Password changes' },
  { type: 'password.reset_issued', label: 'Password-reset codes issued' },
  { type: 'password.reset', label: 'Passwords reset' },
  { type: 'mfa.enabled', label: 'Two-step login turned on' },
  { type: 'mfa.disabled', label: 'Two-step login turned off' },
];

const REASONS: Record<string, string> = {
  invalid_credentials: 'wrong password',
  locked: 'too many failed attempts, login locked for a while',
  not_member: 'not a member of that company',
  otp_required: 'one-time code missing',
  otp_invalid: 'wrong one-time code',
};

function actorName(event: AuditEvent): string {
  const { actor } = event;
  if (actor.kind === 'operator') return 'The operator';
  if (actor.kind === 'anonymous') return 'Someone';
  if (actor.kind === 'api_key') return `An API key of ${actor.email ?? 'a former employee'}`;
  return actor.email ?? `Employee #${String(actor.id)}`;
}

function subjectName(event: AuditEvent): string {
  const subject = event.subject;
  if (!subject) return 'someone';
  return subject.email ?? `${subject.kind.replace('_', ' ')} ${String(subject.id)}`;
}

function list(value: unknown): string {
  const items = Array.isArray(value) ? value.map(String) : [];
  return items.length === 0 ? 'no permissions' : items.join(', ');
}

const selfActs = (event: AuditEvent) =>
  event.actor.kind === 'employee' && event.subject?.email != null && event.subject.email === event.actor.email;

/** One sentence saying who did what to whom, e.g. "owner@… removed clerk@… from the company". */
export function describeEvent(event: AuditEvent, currentCompanyId: number): string {
  const who = actorName(event);
  const whom = subjectName(event);
  const d = event.details;
  switch (event.type) {
    case 'login.succeeded':
      return `${who} logged in`;
    case 'login.failed':
      return `Failed login as ${whom}: ${REASONS[String(d.reason)] ?? String(d.reason)}`;
    case 'token.refreshed':
      return `${who} renewed their login`;
    case 'session.refresh_reuse':
      return `A used refresh token of ${whom} was presented again; that session was ended`;
    case 'session.logged_out':
      return `${who} logged out`;
    case 'session.revoked':
      return selfActs(event) ? `${who} ended one of their sessions` : `${who} ended a session of ${whom}`;
    case 'company.switched':
      return d.to_company_id === currentCompanyId
        ? `${who} switched to this company`
        : `${who} switched from this company to another`;
    case 'apikey.created':
      return `${who} created the API key “${String(d.name)}” (${list(d.permissions)})`;
    case 'apikey.revoked':
      return `${who} revoked the API key “${String(d.name)}” of ${whom}`;
    case 'permissions.changed':
      return `${who} changed the permissions of ${whom} from ${list(d.before)} to ${list(d.after)}`;
    case 'membership.added':
      return `${who} added ${whom} to the company (${list(d.permissions)})`;
    case 'membership.removed':
      return `${who} removed ${whom} from the company`;
    case 'employee.created':
      return `${who} created the account ${whom}`;
    case 'invitation.created':
      return `${who} invited ${whom}`;
    case 'invitation.accepted':
      return `${whom} accepted an invitation`;
    case 'invitation.revoked':
      return `${who} revoked the invitation of ${whom}`;
    case 'password.changed':
      return selfActs(event) ? `${who} changed their password` : `${who} set a new password for ${whom}`;
    case 'password.reset_issued':
      return `${who} issued a password-reset code for ${whom}`;
    case 'password.reset':
      return `${whom} reset their password with a code`;
    case 'mfa.enabled':
      return `${who} turned on two-step login`;
    case 'mfa.disabled':
      return selfActs(event) || !event.subject
        ? `${who} turned off two-step login`
        : `${who} turned off two-step login for ${whom}`;
    default:
      return `${who}: ${event.type}`;
  }
}
