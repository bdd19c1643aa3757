import { HttpStatus } from '@nestjs/common';
import { findInputProblem } from '../../platform/common/http/input-sanity';
import { ScimError } from './scim-errors';

/** What a supported filter asks for: the member whose e-mail (userName) is this, compared without case. */
export interface UserFilter {
  userName: string;
}

const USER_SCHEMA_PREFIX = 'urn:ietf:params:scim:schemas:core:2.0:user:';
/** `attrPath SP "eq" SP compValue` (RFC 7644 3.4.2.2), the compValue a JSON string; nothing else is accepted. */
const EQ_FILTER = /^\s*([A-Za-z][\w:.-]*)\s+([A-Za-z]+)\s+("(?:[^"\\]|\\.)*")\s*$/;

const invalidFilter = (detail: string) => new ScimError(HttpStatus.BAD_REQUEST, detail, 'invalidFilter');

/**
 * The filter grammar identity providers send when they look a user up before creating it (Okta, Microsoft Entra
 * ID: `userName eq "ann@example.com"`). Attribute names and the operator are case-insensitive (RFC 7643 2.1,
 * RFC 7644 3.4.2.2); the value of userName is compared without case, as its schema says (`caseExact: false`).
 * Every other filter (another attribute, another operator, `and`/`or`, a value that is not a string) answers
 * 400 `invalidFilter`: a client must never get a silently unfiltered list.
 */
export function parseUserFilter(filter: string): UserFilter {
  return { userName: parseEqFilter(filter, 'userName', USER_SCHEMA_PREFIX) };
}

/**
 * The value of `<attribute> eq "value"` (the attribute's name in any case, or qualified by `schemaPrefix`, given
 * in lower case); any other filter answers 400 `invalidFilter`. Groups use it for `displayName eq "…"`.
 */
export function parseEqFilter(filter: string, attributeName: string, schemaPrefix: string): string {
  if (filter.length > 1000) throw invalidFilter('The filter is too long.');
  const match = EQ_FILTER.exec(filter);
  if (!match) throw invalidFilter(`Only filters of the form ${attributeName} eq "value" are supported.`);
  const [, rawAttribute, operator, literal] = match;
  let attribute = rawAttribute.toLowerCase();
  if (attribute.startsWith(schemaPrefix)) attribute = attribute.slice(schemaPrefix.length);
  if (attribute !== attributeName.toLowerCase()) {
    throw invalidFilter(`Only the attribute ${attributeName} can be filtered on.`);
  }
  if (operator.toLowerCase() !== 'eq') throw invalidFilter('Only the operator eq is supported.');
  let value: unknown;
  try {
    value = JSON.parse(literal);
  } catch {
    throw invalidFilter('The filter value is not a valid string.');
  }
  if (typeof value !== 'string') throw invalidFilter('The filter value is not a valid string.');
  // The input-sanity layer saw the escapes (`\u0000`), not what they stand for: the same rule, after unescaping.
  const problem = findInputProblem(value);
  if (problem) throw invalidFilter(`The filter value ${problem.message.replace(/^the value /, '')}.`);
  return value;
}

/** `startIndex` and `count` (RFC 7644 3.4.2.4): below 1 reads as 1, a negative count as 0, at most `max`. */
function integerParameter(value: unknown, name: string, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  if (typeof value !== 'string' || !/^-?\d{1,9}$/.test(value.trim())) {
    throw ScimError.invalidValue(`${name} must be an integer.`);
  }
  return Number(value.trim());
}

/**
 * A list request's query (RFC 7644 3.4.2): its one `filter` (unparsed; empty reads as none) and its page. Users
 * and Groups read it alike; every other parameter is one SCIM lets a server ignore.
 */
export function listQuery(
  query: Record<string, unknown>,
  max: number,
): { filter: string | undefined; startIndex: number; count: number } {
  if (query.filter !== undefined && typeof query.filter !== 'string') throw invalidFilter('Give one filter.');
  return {
    filter: query.filter === undefined || query.filter === '' ? undefined : query.filter,
    startIndex: Math.max(1, integerParameter(query.startIndex, 'startIndex', 1)),
    count: Math.min(max, Math.max(0, integerParameter(query.count, 'count', max))),
  };
}
