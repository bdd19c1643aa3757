import { HttpStatus } from '@nestjs/common';
import { parseRecordId } from '../../platform/common/http/record-id';
import { PATCH_OP_SCHEMA } from './scim-patch';
import { ScimError } from './scim-errors';
import { isObject } from './scim-user';

export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const MAX_NAME_LENGTH = 200;
const MAX_MEMBERS = 1000;
const MAX_OPERATIONS = 100;

/** A role as a SCIM Group shows it: its holders with their e-mails. */
export interface GroupState {
  id: number;
  name: string;
  createdAt: Date;
  updatedAt: Date;
  members: Array<{ employeeId: number; email: string }>;
}

export function groupResource(group: GroupState, baseUrl: string, withMembers = true) {
  const id = String(group.id);
  return {
    schemas: [GROUP_SCHEMA],
    id,
    displayName: group.name,
    ...(withMembers
      ? {
          members: group.members.map((member) => ({
            value: String(member.employeeId),
            display: member.email,
            $ref: `${baseUrl}/Users/${member.employeeId}`,
            type: 'User',
          })),
        }
      : {}),
    meta: {
      resourceType: 'Group',
      created: group.createdAt.toISOString(),
      lastModified: group.updatedAt.toISOString(),
      location: `${baseUrl}/Groups/${id}`,
    },
  };
}

/** What a request asks of a group: a new name, the whole member list, members to add or to take away. */
export interface GroupChange {
  displayName?: string;
  /** The complete new list (POST, PUT, PATCH replace of `members`). */
  members?: number[];
  add: number[];
  remove: number[];
}

const invalidValue = (detail: string) => ScimError.invalidValue(detail);
/** A group id of no role of the token's company (another company's included). */
export const noSuchGroup = () => new ScimError(HttpStatus.NOT_FOUND, 'No such group in this company.');
const invalidSyntax = (detail: string) => new ScimError(HttpStatus.BAD_REQUEST, detail, 'invalidSyntax');

function parseDisplayName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.trim().length > MAX_NAME_LENGTH) {
    throw invalidValue(`displayName must be a string of 1 to ${MAX_NAME_LENGTH} characters.`);
  }
  return value.trim();
}

/** `[{"value": "12"}, …]` → employee ids; a value that cannot be a user's id is refused. */
function parseMembers(value: unknown): number[] {
  if (value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  if (list.length > MAX_MEMBERS) throw new ScimError(HttpStatus.BAD_REQUEST, 'Too many members.', 'tooMany');
  return list.map((member) => {
    const raw = isObject(member) ? member.value : undefined;
    const id = parseRecordId(typeof raw === 'number' ? String(raw) : raw);
    if (id === null) throw invalidValue('Each member must be {"value": "<the id of a User>"}.');
    return id;
  });
}

/** A Group resource (POST, PUT): `displayName` required, `members` optional (PUT: none listed = none). */
export function parseGroupResource(body: unknown): GroupChange & { displayName: string; members: number[] } {
  if (!isObject(body)) throw invalidSyntax('The body must be a SCIM Group (a JSON object).');
  return {
    displayName: parseDisplayName(body.displayName),
    members: body.members === undefined ? [] : parseMembers(body.members),
    add: [],
    remove: [],
  };
}

/** `members[value eq "12"]` → 12 (Entra's remove of one member); null when the path names no single member. */
function memberOfPath(path: string): number | null {
  const match = /^members\[\s*value\s+eq\s+"([^"]*)"\s*\]$/i.exec(path.trim());
  if (!match) return null;
  const id = parseRecordId(match[1]);
  if (id === null) throw invalidValue('The member in the path is not the id of a User.');
  return id;
}

/**
 * A PATCH body (RFC 7644 3.5.2) as Okta and Microsoft Entra ID send it for groups, in order: `op` in any case
 * (Entra's `Add`, `Remove`, `Replace`); `members` added, removed (with a value list, or Entra's path filter
 * `members[value eq "id"]`) or replaced; `displayName` replaced with a path or in a value object (Okta's
 * `{"op": "replace", "value": {"id", "displayName"}}`). Other attributes (externalId) are accepted and ignored.
 */
export function parseGroupPatch(body: unknown): GroupChange {
  if (!isObject(body)) throw invalidSyntax('The body must be a SCIM PatchOp message (a JSON object).');
  if (body.schemas !== undefined && (!Array.isArray(body.schemas) || !body.schemas.includes(PATCH_OP_SCHEMA))) {
    throw invalidSyntax(`schemas must include ${PATCH_OP_SCHEMA}.`);
  }
  const operations = body.Operations ?? body.operations;
  if (!Array.isArray(operations) || operations.length === 0)
    throw invalidSyntax('Operations must be a non-empty list.');
  if (operations.length > MAX_OPERATIONS) {
    throw new ScimError(HttpStatus.BAD_REQUEST, `At most ${MAX_OPERATIONS} operations per request.`, 'tooMany');
  }
  const change: GroupChange = { add: [], remove: [] };
  for (const operation of operations) applyOperation(change, operation);
  return change;
}

function applyOperation(change: GroupChange, operation: unknown): void {
  if (!isObject(operation)) throw invalidSyntax('Each operation must be an object.');
  const op = typeof operation.op === 'string' ? operation.op.toLowerCase() : undefined;
  if (op !== 'add' && op !== 'replace' && op !== 'remove') throw invalidSyntax('op must be add, replace or remove.');
  const rawPath = operation.path;
  if (rawPath === undefined || rawPath === null || rawPath === '') {
    if (op === 'remove') throw new ScimError(HttpStatus.BAD_REQUEST, 'remove needs a path.', 'noTarget');
    if (!isObject(operation.value)) throw invalidSyntax('Without a path, value must be an object of attributes.');
    for (const [attribute, value] of Object.entries(operation.value)) setAttribute(change, op, attribute, value);
    return;
  }
  if (typeof rawPath !== 'string' || rawPath.length > 500) {
    throw new ScimError(HttpStatus.BAD_REQUEST, 'The path is not a valid attribute path.', 'invalidPath');
  }
  const path = rawPath.trim().replace(new RegExp(`^${GROUP_SCHEMA}:`, 'i'), '');
  if (op === 'remove') {
    const one = memberOfPath(path);
    if (one !== null) return void move(change, [one], 'remove');
    if (path.toLowerCase() !== 'members') {
      if (path.toLowerCase() === 'displayname') {
        throw new ScimError(HttpStatus.BAD_REQUEST, 'displayName cannot be removed.', 'mutability');
      }
      return;
    }
    // Without a value, `remove members` takes every member away (RFC 7644 3.5.2.2).
    if (operation.value === undefined) change.members = [];
    else move(change, parseMembers(operation.value), 'remove');
    return;
  }
  if (!('value' in operation)) throw invalidSyntax(`${op} needs a value.`);
  setAttribute(change, op, path, operation.value);
}

function setAttribute(change: GroupChange, op: 'add' | 'replace', attribute: string, value: unknown): void {
  switch (attribute.toLowerCase()) {
    case 'displayname':
      change.displayName = parseDisplayName(value);
      return;
    case 'members':
      if (op === 'add') move(change, parseMembers(value), 'add');
      else {
        change.members = parseMembers(value);
        change.add = [];
        change.remove = [];
      }
      return;
  }
}

/** Records an add or a remove after whatever came before it in the same request. */
function move(change: GroupChange, ids: number[], direction: 'add' | 'remove'): void {
  if (change.members !== undefined) {
    const members = new Set(change.members);
    for (const id of ids) {
      if (direction === 'add') members.add(id);
      else members.delete(id);
    }
    change.members = [...members];
    return;
  }
  const [into, from] = direction === 'add' ? [change.add, change.remove] : [change.remove, change.add];
  for (const id of ids) {
    const at = from.indexOf(id);
    if (at !== -1) from.splice(at, 1);
    if (!into.includes(id)) into.push(id);
  }
}
