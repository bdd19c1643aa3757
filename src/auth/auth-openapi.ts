import { ErrorCode } from '../common/errors/error-codes';
import type { AuthRule } from './auth.decorator';

/** What a route's access rule ({@link AuthRule}) answers, for the OpenAPI document. */
export interface AuthAnswers {
  codes: ErrorCode[];
  /** `security: []` in the document: no credential needed. */
  public: boolean;
  /** What the credential needs, when the rule can answer 403. */
  forbidden?: string;
}

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
  if (!rule.permission && !rule.jwtOnly) return { codes, public: false };
  const needs = [
    rule.jwtOnly ? 'a login token (JWT), not an API key' : 'a JWT or an API key',
    rule.permission ? `with the permission \`${rule.permission}\`` : '',
  ];
  return {
    codes: [...codes, ErrorCode.PermissionDenied],
    public: false,
    forbidden: `This operation needs ${needs.filter(Boolean).join(' ')}.`,
  };
}
