import { ErrorCode } from '../../platform/common/errors/error-codes';
import type { AuthRule } from '../../access/rules/auth.decorator';

/** What a route's access rule ({@link AuthRule}) answers, for the OpenAPI document. */
export interface AuthAnswers {
  codes: ErrorCode[];
  /** `security: []` in the document: no credential needed. */
  public: boolean;
  /** What the credential needs, when the rule can answer 403. */
  forbidden?: string;
  /** Why the route can answer error_reauthentication_required, when it needs a step-up. */
  unauthorized?: string;
}

const STEP_UP_NOTE =
  'error_reauthentication_required (step-up): a login token whose session last proved its person (login or ' +
  'POST /v1/users/me/reauthenticate) more than 15 minutes ago is refused; reauthenticate, then retry. API keys ' +
  'are not asked.';

/**
 * The errors the auth guard answers for a rule: a query-string credential is refused on every route, public
 * ones included; a protected route adds the credential's own failures, and 403 when it needs a permission or a
 * login token; a route with no rule is refused outright (fail closed).
 */
export function authAnswers(rule: AuthRule | undefined): AuthAnswers {
  const codes: ErrorCode[] = [ErrorCode.JwtQueryNotAllowed];
  if (!rule) return { codes: [...codes, ErrorCode.PermissionDenied], public: false };
  if (rule.public) return { codes, public: true };
  codes.push(ErrorCode.JwtIsRequired, ErrorCode.JwtHashNotFound, ErrorCode.JwtBlacklisted, ErrorCode.JwtExpired);
  // The company's policy may accept its credentials from some client addresses only (any protected route).
  // … and restrict a session without a second factor to enrolling one, where it requires one.
  codes.push(ErrorCode.IpNotAllowed, ErrorCode.MfaEnrollmentRequired);
  if (rule.stepUp) codes.push(ErrorCode.ReauthenticationRequired);
  const unauthorized = rule.stepUp ? STEP_UP_NOTE : undefined;
  if (!rule.permission && !rule.jwtOnly && !rule.apiKeyOnly) return { codes, public: false, unauthorized };
  const needs = [
    rule.jwtOnly
      ? 'a login token (JWT), not an API key'
      : rule.apiKeyOnly
        ? 'an API key, not a login token (JWT)'
        : 'a JWT or an API key',
    rule.permission ? `with the permission \`${rule.permission}\`` : '',
  ];
  return {
    codes: [...codes, ErrorCode.PermissionDenied],
    public: false,
    unauthorized,
    forbidden: `This operation needs ${needs.filter(Boolean).join(' ')}.`,
  };
}
