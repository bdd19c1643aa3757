import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError, type FieldError } from '../errors/api-error';

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/**
 * Validates every body, query and parameter DTO: unknown fields are refused (not silently dropped), types are
 * converted only where the DTO declares them, and failures answer `error_validation` with one entry per problem.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    // Field values are never echoed back: they may be passwords.
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const details = flatten(errors);
      return ApiError.validation(details[0]?.message ?? 'The request is not valid.', details);
    },
  });
}
