const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Whether a string is shaped like the ids this service issues (lower-case UUIDs): cheap screening of a route's
 * `:id` or a CLI flag, so a malformed id answers "not found" before any query (PostgreSQL would refuse it with
 * an error, not an empty result).
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
