import { HttpStatus } from '@nestjs/common';
import { ScimError } from './scim-errors';
import {
  applyName,
  checkEmails,
  isObject,
  parseActive,
  parseNamePart,
  parseUserName,
  USER_SCHEMA,
  type UserChange,
} from './scim-user';

export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const MAX_OPERATIONS = 100;

/** `attr`, `attr.sub`, `attr[filter]`, `attr[filter].sub` (RFC 7644 3.5.2), after any schema URN. */
const PATH = /^([A-Za-z][\w$-]*)(\[[^\]]*\])?(?:\.([A-Za-z][\w$-]*))?$/;
const USER_URN = `${USER_SCHEMA.toLowerCase()}:`;

const invalidSyntax = (detail: string) => new ScimError(HttpStatus.BAD_REQUEST, detail, 'invalidSyntax');

/**
 * A PATCH body (RFC 7644 3.5.2) as Okta and Microsoft Entra ID send it, turned into one {@link UserChange}:
 * - `op` in any case (`replace`, Entra's `Replace`); `add` and `replace` set, `remove` clears a name part;
 * - with a `path` (`active`, `userName`, `displayName`, `name.givenName`, `emails[type eq "work"].value`,
 *   schema-qualified paths) or without one, the value then being an object of attributes (Okta's
 *   `{"op": "replace", "value": {"active": false}}`);
 * - `active` as a boolean or Entra's "True" / "False".
 * Attributes this service does not keep (externalId, title, phone numbers, the enterprise extension, …) are
 * accepted and ignored, so a provider mapping them does not fail; a malformed body or path answers 400.
 */
export function parsePatch(body: unknown): UserChange {
  if (!isObject(body)) throw invalidSyntax('The body must be a SCIM PatchOp message (a JSON object).');
  if (body.schemas !== undefined) {
    if (!Array.isArray(body.schemas) || !body.schemas.includes(PATCH_OP_SCHEMA)) {
      throw invalidSyntax(`schemas must include ${PATCH_OP_SCHEMA}.`);
    }
  }
  const operations = body.Operations ?? body.operations;
  if (!Array.isArray(operations) || operations.length === 0) {
    throw invalidSyntax('Operations must be a non-empty list.');
  }
  if (operations.length > MAX_OPERATIONS) {
    throw new ScimError(HttpStatus.BAD_REQUEST, `At most ${MAX_OPERATIONS} operations per request.`, 'tooMany');
  }
  const change: UserChange = {};
  for (const operation of operations) applyOperation(change, operation);
  return change;
}

function applyOperation(change: UserChange, operation: unknown): void {
  if (!isObject(operation)) throw invalidSyntax('Each operation must be an object.');
  const op = typeof operation.op === 'string' ? operation.op.toLowerCase() : undefined;
  if (op !== 'add' && op !== 'replace' && op !== 'remove') {
    throw invalidSyntax('op must be add, replace or remove.');
  }
  const path = operation.path;
  if (path === undefined || path === null || path === '') {
    if (op === 'remove') throw new ScimError(HttpStatus.BAD_REQUEST, 'remove needs a path.', 'noTarget');
    if (!isObject(operation.value)) throw invalidSyntax('Without a path, value must be an object of attributes.');
    for (const [attribute, value] of Object.entries(operation.value)) setAttribute(change, attribute, value);
    return;
  }
  if (typeof path !== 'string' || path.length > 500) throw invalidPath();
  if (op === 'remove') removeAttribute(change, path);
  else {
    if (!('value' in operation)) throw invalidSyntax(`${op} needs a value.`);
    setAttribute(change, path, operation.value);
  }
}

const invalidPath = () =>
  new ScimError(HttpStatus.BAD_REQUEST, 'The path is not a valid attribute path.', 'invalidPath');

/** `urn:…:User:name.givenName` → `name.givenname`; another schema's attribute → null (not kept here). */
function attributeOf(path: string): { attribute: string; filtered: boolean } | null {
  let local = path.trim();
  if (/^urn:/i.test(local)) {
    // The enterprise extension and providers' own schemas: attributes this service does not keep.
    if (!local.toLowerCase().startsWith(USER_URN)) return null;
    local = local.slice(USER_URN.length);
  }
  const match = PATH.exec(local);
  if (!match) throw invalidPath();
  const [, name, filter, sub] = match;
  return { attribute: `${name}${sub ? `.${sub}` : ''}`.toLowerCase(), filtered: filter !== undefined };
}

function setAttribute(change: UserChange, path: string, value: unknown): void {
  const target = attributeOf(path);
  if (target === null) return;
  const [head] = target.attribute.split('.');
  switch (target.filtered ? head : target.attribute) {
    case 'active':
      change.active = parseActive(value);
      return;
    case 'username':
      change.userName = parseUserName(value);
      return;
    case 'displayname':
      change.displayName = parseNamePart(value, 'displayName');
      return;
    case 'name':
      applyName(change, value);
      return;
    case 'name.givenname':
      change.givenName = parseNamePart(value, 'name.givenName');
      return;
    case 'name.familyname':
      change.familyName = parseNamePart(value, 'name.familyName');
      return;
    case 'emails':
    case 'emails.value':
      if (typeof value === 'string') return;
      checkEmails(value);
      return;
  }
}

function removeAttribute(change: UserChange, path: string): void {
  const target = attributeOf(path);
  if (target === null) return;
  switch (target.attribute) {
    case 'username':
    case 'active':
      throw new ScimError(HttpStatus.BAD_REQUEST, `${path} cannot be removed.`, 'mutability');
    case 'name.givenname':
      change.givenName = '';
      return;
    case 'name.familyname':
      change.familyName = '';
      return;
  }
}
