/**
 * The security events of docs/contract.md's "Security events (audit trail)": one typed union, so a recorder call with
 * a misspelt type does not compile. `AuditRecorder.record(manager, event)` writes one inside the caller's
 * transaction (see audit-recorder.service.ts).
 */
export const AUDIT_EVENT_TYPES = [
  'login.succeeded',
  'login.failed',
  'token.refreshed',
  'session.refresh_reuse',
  'session.logged_out',
  'session.revoked',
  'session.reauthenticated',
  'company.switched',
  'apikey.created',
  'apikey.revoked',
  'permissions.changed',
  'membership.added',
  'membership.removed',
  'invitation.created',
  'invitation.accepted',
  'invitation.revoked',
  'employee.created',
  'password.changed',
  'password.reset_issued',
  'password.reset',
  'mfa.enabled',
  'mfa.disabled',
  'passkey.added',
  'passkey.removed',
  'ratelimit.override_set',
  'ratelimit.override_removed',
  'ratelimit.quota_set',
  'ratelimit.quota_removed',
  'sso.connection_changed',
  'role.created',
  'role.changed',
  'role.deleted',
  'company.policy_changed',
] as const;

export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/** `details.reason` of `login.failed`. */
export type LoginFailureReason =
  | 'invalid_credentials'
  | 'locked'
  | 'not_member'
  | 'otp_required'
  | 'otp_invalid'
  | 'sso_required'
  | 'sso_failed'
  | 'passkey_invalid'
  | 'ip_not_allowed';

export type AuditActorKind = 'employee' | 'api_key' | 'operator' | 'anonymous';

/** Who did it. `id`/`email` are null for the operator (CLI) and for anonymous callers. */
export interface AuditActor {
  kind: AuditActorKind;
  id: number | string | null;
  email: string | null;
}

/** Whom or what it was done to (an employee, an API key, a session, an invitation), when not the actor. */
export interface AuditSubject {
  kind: 'employee' | 'api_key' | 'session' | 'invitation' | 'role';
  id: number | string;
  email: string | null;
}

/** What a module hands the recorder; the recorder adds `id` and `occurred_at` (from the injected clock). */
export interface AuditEventInput {
  type: AuditEventType;
  companyId: number;
  actor: AuditActor;
  subject?: AuditSubject | null;
  sessionId?: string | null;
  ip?: string | null;
  /** Cut to 256 characters by the recorder. */
  userAgent?: string | null;
  /** Never a password, token, secret, code or hash. */
  details?: Record<string, unknown>;
}
