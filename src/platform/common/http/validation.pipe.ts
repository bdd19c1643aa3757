import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError, type FieldError } from '../errors/api-error';

/**
 * The order in which a field's failed rules are weighed; the first that failed is the one reported. A field that
 * should not be there says so; a missing one is "required" (answered before this list); then its type, then
 * emptiness, then size and range, then format. class-validator's own order cannot be used: it follows how the
 * decorators were applied (stacked ones bottom-up, `applyDecorators` top-down), so a missing password came out as
 * "must be shorter than or equal to 256 characters".
 */
const RULE_ORDER = [
  'whitelistValidation',
  'isDefined',
  // type
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isArray',
  'isObject',
  'nestedValidation',
  // emptiness, size, range
  'isNotEmpty',
  'arrayNotEmpty',
  'minLength',
  'maxLength',
  'isLength',
  'arrayMinSize',
  'arrayMaxSize',
  'min',
  'max',
  // format and allowed values
  'isEmail',
  'isUuid',
  'isIso8601',
  'matches',
  'isIn',
  'arrayUnique',
];
const rank = (rule: string) => {
  const at = RULE_ORDER.indexOf(rule);
  return at === -1 ? RULE_ORDER.length : at;
};

/** The one message of a field: "required" when absent, else the first failed rule in {@link RULE_ORDER}. */
function firstProblem(error: ValidationError, field: string): string | undefined {
  const constraints = error.constraints ?? {};
  const rules = Object.keys(constraints);
  if (rules.length === 0) return undefined;
  if (error.value === undefined && !rules.includes('whitelistValidation')) return `${field} is required`;
  const [first] = rules.sort((a, b) => rank(a) - rank(b));
  return constraints[first];
}

/** One entry per field, nested fields by their path (`lines.0.product_id`). */
export function fieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const message = firstProblem(error, field);
    return [...(message ? [{ field, message }] : []), ...fieldErrors(error.children ?? [], field)];
  });
}

/**
 * Validates every body, query and parameter DTO: unknown fields are refused (not silently dropped), types are
 * converted only where the DTO declares them, and failures answer `error_validation` with one entry per field
 * that failed, naming the first rule it broke.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    // The value is read here only to tell a missing field from a wrong one; it is never put in an answer, where
    // it could be a password. The target (the whole body) is not kept at all.
    validationError: { target: false, value: true },
    exceptionFactory: (errors) => {
      const details = fieldErrors(errors);
      return ApiError.validation(details[0]?.message ?? 'The request is not valid.', details);
    },
  });
}
