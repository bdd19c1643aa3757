/** Every error code the interface answers with (staff-auth-and-rate-limit.md §7 and contract.md "Error bodies"). */
export const ErrorCode = {
  Validation: 'error_validation',
  InvalidCredentials: 'error_invalid_credentials',
  RefreshTokenInvalid: 'error_refresh_token_invalid',
  SessionMaxAge: 'error_session_max_age',
  CompanyNotMember: 'error_company_not_member',
  PermissionDenied: 'error_permission_denied',
  NotFound: 'error_not_found',
  PayloadTooLarge: 'error_payload_too_large',
  UnsupportedMediaType: 'error_unsupported_media_type',
  BadRequest: 'error_bad_request',
  UriTooLong: 'error_uri_too_long',
  HeadersTooLarge: 'error_headers_too_large',
  Internal: 'error_internal',
  ServiceUnavailable: 'error_service_unavailable',
  JwtIsRequired: 'error_jwt_is_required',
  JwtQueryNotAllowed: 'error_jwt_query_not_allowed',
  JwtHashNotFound: 'error_jwt_hash_not_found',
  JwtBlacklisted: 'error_jwt_blacklisted',
  JwtExpired: 'error_jwt_expired',
  RateLimitExceed: 'error_rate_limit_exceed',
  InvitationInvalid: 'error_invitation_invalid',
  ResetCodeInvalid: 'error_reset_code_invalid',
  OtpRequired: 'error_otp_required',
  OtpInvalid: 'error_otp_invalid',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
