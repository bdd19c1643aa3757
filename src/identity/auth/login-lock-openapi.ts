import { ApiTooManyRequestsResponse } from '@nestjs/swagger';

/**
 * The 429 of the failed-login lock, on every route that checks a password or a second factor (each counts
 * toward the e-mail's lock and is refused while it holds).
 */
export const ApiFailedLoginLock = () =>
  ApiTooManyRequestsResponse({
    description: 'Ten failed logins for this e-mail within 15 minutes (body in the object form)',
    example: {
      error: ['error_rate_limit_exceed'],
      message: 'Too many failed logins for this e-mail; try again later.',
    },
  });
