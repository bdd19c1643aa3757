import { HttpStatus } from '@nestjs/common';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import { coversAll, type Grant, normalizeGrants } from './permission';

/**
 * The permissions a caller may hand out (to a new employee, an API key, a membership): only ones it holds
 * itself, so no route that grants permissions is a way to gain more. Answers them normalized, or 403. Takes only
 * what it reads of the caller rather than auth's Principal, so permissions/ does not import auth/.
 */
export function grantableBy(
  principal: { permissions: readonly Grant[] },
  wanted: readonly Grant[],
  refusal: string,
): Grant[] {
  const permissions = normalizeGrants(wanted);
  if (!coversAll(principal.permissions, permissions)) {
    throw new ApiError(ErrorCode.PermissionDenied, HttpStatus.FORBIDDEN, refusal);
  }
  return permissions;
}
