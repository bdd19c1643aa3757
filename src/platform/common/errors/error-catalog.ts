import type { FieldError } from './api-error';
import { ErrorCode } from './error-codes';

export interface ErrorCodeEntry {
  /** The one HTTP status this code is answered with (docs/contract.md "Error bodies"). */
  status: number;
  /** When the service answers it, in words a client developer reads in the OpenAPI document. */
  when: string;
  /** A message the service really sends with this code (the OpenAPI example). */
  example: string;
  details?: FieldError[];
}

/**
 * Status, meaning and a real example of every error code. Typed over {@link ErrorCode}, so a new code cannot be
 * added without its documentation; the OpenAPI document's error examples come from here.
 */
export const ERROR_CATALOG: Record<ErrorCode, ErrorCodeEntry> = {
  [ErrorCode.Validation]: {
    status: 400,
    when: 'a body, query or path value fails validation (one `details` entry per problem), or the JSON is malformed',
    example: 'company_id must be an integer number',
    details: [{ field: 'company_id', message: 'company_id must be an integer number' }],
  },
  [ErrorCode.BadRequest]: {
    status: 400,
    when: 'the HTTP request itself is malformed (bad header syntax, bad framing); decided before routing',
    example: 'The HTTP request is malformed.',
  },
  [ErrorCode.InvalidCredentials]: {
    status: 401,
    when: 'wrong e-mail or password (the same answer for both)',
    example: 'The e-mail or password is wrong.',
  },
  [ErrorCode.InvitationInvalid]: {
    status: 400,
    when: 'unknown, used, expired or revoked invitation code, or a code for another e-mail',
    example: 'The invitation code is not valid.',
  },
  [ErrorCode.ResetCodeInvalid]: {
    status: 400,
    when: 'unknown, used or expired password-reset code, or a code for another e-mail',
    example: 'The password-reset code is not valid.',
  },
  [ErrorCode.OtpRequired]: {
    status: 401,
    when: 'the password was right and the account has TOTP on, but no `otp` or `recovery_code` was sent',
    example: 'This account needs a one-time code from its authenticator app.',
  },
  [ErrorCode.OtpInvalid]: {
    status: 401,
    when: 'wrong, reused or stale one-time code or recovery code (counts as a failed login)',
    example: 'The one-time code is not valid.',
  },
  [ErrorCode.RefreshTokenInvalid]: {
    status: 401,
    when: 'unknown, malformed or already used refresh token',
    example: 'The refresh token is not valid.',
  },
  [ErrorCode.SessionMaxAge]: {
    status: 400,
    when: 'refresh more than 30 days after login: log in again',
    example: 'The session is more than 30 days old; log in again.',
  },
  [ErrorCode.CompanyNotMember]: {
    status: 403,
    when: "company_id is not one of the account's companies",
    example: 'The account does not belong to this company.',
  },
  [ErrorCode.PermissionDenied]: {
    status: 403,
    when: 'the credential lacks the permission the operation needs, or an API key calls a login-only operation',
    example: 'This operation needs the permission products:write.',
  },
  [ErrorCode.NotFound]: {
    status: 404,
    when: 'no such record in the current company (records of other companies and malformed ids included)',
    example: 'No such product.',
  },
  [ErrorCode.MethodNotAllowed]: {
    status: 405,
    when: 'the path is a route of another method; the Allow header lists the methods it takes (unknown paths: 404)',
    example: 'This path does not take that method; it takes POST (the Allow header).',
  },
  [ErrorCode.Conflict]: {
    status: 409,
    when:
      "a value that must be unique is taken (a product's sku in its company, an account's e-mail); nothing was " +
      'changed',
    example: 'A product with this sku already exists in this company.',
  },
  [ErrorCode.PayloadTooLarge]: {
    status: 413,
    when: 'the body is over the limit (1 MiB of JSON; uploads: FILES_MAX_BYTES)',
    example: 'The request body is larger than the 1 MiB limit.',
  },
  [ErrorCode.UnsupportedMediaType]: {
    status: 415,
    when: 'a body that is not of the media type the operation takes (application/json unless stated)',
    example: 'The request body must be application/json.',
  },
  [ErrorCode.UriTooLong]: {
    status: 414,
    when: 'the path or query string is over the limit; decided before routing',
    example: 'The request URI is too long.',
  },
  [ErrorCode.HeadersTooLarge]: {
    status: 431,
    when: 'the request headers are over the limit; decided before routing',
    example: 'The request headers are too large.',
  },
  [ErrorCode.Internal]: {
    status: 500,
    when: 'anything unexpected; `correlation_id` (also the X-Request-Id header) identifies it in the logs',
    example: 'An unexpected error occurred. Quote the correlation id when reporting it.',
  },
  [ErrorCode.ServiceUnavailable]: {
    status: 503,
    when:
      'the database cannot be reached, the instance is shutting down, or it is saturated and sheds the request ' +
      '(with `Retry-After`): retry shortly',
    example: 'The database cannot be reached; try again shortly.',
  },
  [ErrorCode.JwtIsRequired]: {
    status: 401,
    when: 'no Authorization header, or an empty one',
    example:
      'This API needs an Authorization header: send the jwt of a login (POST /v1/users/authenticatefinish) or an ' +
      'API key (key:secret) as it is.',
  },
  [ErrorCode.JwtQueryNotAllowed]: {
    status: 401,
    when: 'a credential in the `__jwtAuthorization` query parameter (refused on every operation)',
    example: 'Credentials are not accepted in the query string; send them in the Authorization header.',
  },
  [ErrorCode.JwtHashNotFound]: {
    status: 401,
    when: 'unknown, malformed, wrongly signed or `Bearer `-prefixed credential',
    example: 'The credential is not valid: send the raw token or API key, without the Bearer prefix.',
  },
  [ErrorCode.JwtBlacklisted]: {
    status: 400,
    when: 'the token or key was revoked (logout, company switch, refresh, session or key revoked)',
    example: 'The credential has been revoked (logout, company switch or revocation).',
  },
  [ErrorCode.JwtExpired]: {
    status: 400,
    when: 'the token has expired: refresh it',
    example: 'The token has expired; refresh it.',
  },
  [ErrorCode.SsoRequired]: {
    status: 403,
    when:
      'the company signs its staff in through its identity provider only: a password or passkey login, an ' +
      'invitation acceptance or a switch into it from a session that did not sign in there',
    example: "This company signs its staff in through its identity provider; use the company's single sign-on.",
  },
  [ErrorCode.LoginMethodNotAccepted]: {
    status: 403,
    when:
      "the session was proven through another company's identity provider, which this company does not trust: a " +
      'switch into it, or a refresh in it; log in to that company directly',
    example: "This session signed in through another company's identity provider; log in to this company directly.",
  },
  [ErrorCode.ReauthenticationRequired]: {
    status: 401,
    when: 'the action needs a fresh proof of the person (step-up): POST /v1/users/me/reauthenticate, then repeat it',
    example: 'This action needs you to prove who you are again; reauthenticate and retry.',
  },
  [ErrorCode.LoginTicketInvalid]: {
    status: 400,
    when: 'unknown, used or expired `login_ticket`, `sso_code` or passkey `challenge_id`',
    example: 'The login ticket is unknown, used or expired; start the login again.',
  },
  [ErrorCode.IpNotAllowed]: {
    status: 403,
    when:
      "the company accepts its credentials from other client addresses only (its policy's `ip_allowlist`): a " +
      'login into it, a refresh or switch into it, or a request with its credentials',
    example: 'This company accepts its credentials only from its own networks.',
  },
  [ErrorCode.MfaEnrollmentRequired]: {
    status: 403,
    when:
      'the company requires a second factor and this session has not proven one: only /v1/users/me, its mfa/* and ' +
      'passkeys routes and logout answer until a factor is enrolled and the person logs in again',
    example: 'Your company requires a second factor: enrol TOTP or a passkey, then log in again.',
  },
  [ErrorCode.RateLimitExceed]: {
    status: 429,
    when: 'a rate limit is reached: wait Retry-After seconds',
    example: 'Too many requests; the next one fits after Retry-After seconds.',
  },
};

export const isErrorCode = (value: string): value is ErrorCode => Object.hasOwn(ERROR_CATALOG, value);
