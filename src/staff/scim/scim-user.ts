import { isEmail } from 'class-validator';
import type { ProvisionedMember } from '../../accounts/membership/membership-records';
import { ScimError } from './scim-errors';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';

/** The employee table's limits (src/accounts/employee/employee.entity.ts). */
const MAX_EMAIL_LENGTH = 320;
const MAX_NAME_LENGTH = 200;

/**
 * What a request asks to change of a member; absent fields stay as they are. userName is the account's e-mail;
 * the account has one display name, which `displayName` sets, or else `name.givenName` and `name.familyName`.
 */
export interface UserChange {
  userName?: string;
  displayName?: string;
  givenName?: string;
  familyName?: string;
  active?: boolean;
}

/** `"Ann Lee Smith"` → given `Ann Lee`, family `Smith`: the account keeps one name, SCIM shows it in parts. */
export function splitName(full: string): { givenName: string; familyName: string } {
  const at = full.trim().lastIndexOf(' ');
  return at === -1
    ? { givenName: full.trim(), familyName: '' }
    : { givenName: full.slice(0, at).trim(), familyName: full.slice(at + 1).trim() };
}

/** The display name after `change`, from the member's current one. */
export function nameAfter(current: string, change: UserChange): string {
  if (change.displayName !== undefined && change.displayName.trim() !== '') return change.displayName.trim();
  if (change.givenName === undefined && change.familyName === undefined) return current;
  const parts = splitName(current);
  const joined = `${change.givenName ?? parts.givenName} ${change.familyName ?? parts.familyName}`.trim();
  return joined === '' ? current : joined;
}

export function userResource(member: ProvisionedMember, baseUrl: string) {
  const id = String(member.employeeId);
  const lastModified = Math.max(member.updatedAt.getTime(), member.createdAt.getTime());
  return {
    schemas: [USER_SCHEMA],
    id,
    userName: member.email,
    name: { formatted: member.name, ...splitName(member.name) },
    displayName: member.name,
    emails: [{ value: member.email, type: 'work', primary: true }],
    active: !member.suspended,
    meta: {
      resourceType: 'User',
      created: member.createdAt.toISOString(),
      lastModified: new Date(lastModified).toISOString(),
      location: `${baseUrl}/Users/${id}`,
    },
  };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `active` as clients send it: a boolean, or (Microsoft Entra ID) the strings "True" / "False" in any case. */
export function parseActive(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
  throw ScimError.invalidValue('active must be true or false.');
}

export function parseUserName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw ScimError.invalidValue('userName must be a string.');
  const email = value.trim().toLowerCase();
  if (email.length > MAX_EMAIL_LENGTH || !isEmail(email)) {
    throw ScimError.invalidValue('userName must be the e-mail address of the account.');
  }
  return email;
}

export function parseNamePart(value: unknown, attribute: string): string {
  if (value === null) return '';
  if (typeof value !== 'string') throw ScimError.invalidValue(`${attribute} must be a string.`);
  if (value.length > MAX_NAME_LENGTH) throw ScimError.invalidValue(`${attribute} is longer than ${MAX_NAME_LENGTH}.`);
  return value;
}

/** `name: {givenName, familyName, formatted}`; `formatted` is derived, so it is read but not kept. */
export function applyName(change: UserChange, value: unknown): void {
  if (value === null) return;
  if (!isObject(value)) throw ScimError.invalidValue('name must be an object.');
  for (const [key, part] of Object.entries(value)) {
    const lower = key.toLowerCase();
    if (lower === 'givenname') change.givenName = parseNamePart(part, 'name.givenName');
    else if (lower === 'familyname') change.familyName = parseNamePart(part, 'name.familyName');
    else parseNamePart(part, `name.${key}`);
  }
}

/**
 * `emails` is accepted in its SCIM shape but does not change the account: userName is its e-mail (Microsoft
 * Entra ID maps the user principal name there and `mail` to emails, which may differ).
 */
export function checkEmails(value: unknown): void {
  if (value === null) return;
  const entries = Array.isArray(value) ? value : [value];
  for (const entry of entries) {
    if (!isObject(entry) || (entry.value !== undefined && typeof entry.value !== 'string')) {
      throw ScimError.invalidValue('emails must be a list of {"value", "type", "primary"}.');
    }
  }
}

/** The body of POST /Users or PUT /Users/{id}: a whole User resource. Unknown attributes are ignored. */
export function parseUserResource(body: unknown): UserChange & { userName: string } {
  if (!isObject(body))
    throw new ScimError(400, 'The body must be a SCIM User resource (a JSON object).', 'invalidSyntax');
  if (body.schemas !== undefined) {
    const schemas = body.schemas;
    if (!Array.isArray(schemas) || !schemas.some((schema) => schema === USER_SCHEMA)) {
      throw new ScimError(400, `schemas must include ${USER_SCHEMA}.`, 'invalidSyntax');
    }
  }
  const change: UserChange = {};
  for (const [key, value] of Object.entries(body)) {
    switch (key.toLowerCase()) {
      case 'username':
        change.userName = parseUserName(value);
        break;
      case 'displayname':
        if (value !== null) change.displayName = parseNamePart(value, 'displayName');
        break;
      case 'name':
        applyName(change, value);
        break;
      case 'active':
        change.active = parseActive(value);
        break;
      case 'emails':
        checkEmails(value);
        break;
    }
  }
  if (change.userName === undefined) throw ScimError.invalidValue('userName is required.');
  return { ...change, userName: change.userName };
}
