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
