import { HttpStatus } from '@nestjs/common';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';

/** 403 error_ip_not_allowed: the company's `ip_allowlist` does not hold the client's address. */
export const ipNotAllowed = () =>
  new ApiError(
    ErrorCode.IpNotAllowed,
    HttpStatus.FORBIDDEN,
    'This company accepts its credentials only from its own networks; this address is not among them.',
  );

/** 403 error_mfa_enrollment_required: the company requires a second factor this session has not proven. */
export const mfaEnrollmentRequired = () =>
  new ApiError(
    ErrorCode.MfaEnrollmentRequired,
    HttpStatus.FORBIDDEN,
    'Your company requires a second factor: enrol TOTP or a passkey (/v1/users/me/mfa, /v1/users/me/passkeys), ' +
      'then log in again.',
  );
