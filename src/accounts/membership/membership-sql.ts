/**
 * The membership table as other folders' single statements may reach it: a credential look-up reads the
 * permissions with the credential, an event for an account goes to each of its companies. Its name and keys
 * are written only in src/accounts/membership/; changes go through membership-records.ts.
 */

/**
 * `<kind> membership <alias> ON <alias>.employee_id = <employeeColumn> [AND <alias>.company_id = <companyColumn>]`;
 * the caller reads `<alias>.permissions`, `<alias>.company_id`. A LEFT JOIN leaves permissions null for a
 * removed member. A suspended membership (SCIM `active: false`) joins as none unless `suspended` is 'include':
 * a credential of a suspended member is then refused like a removed member's (fail closed by default).
 */
export function membershipJoin(
  alias: string,
  employeeColumn: string,
  companyColumn: string | null,
  kind: 'JOIN' | 'LEFT JOIN' = 'JOIN',
  suspended: 'exclude' | 'include' = 'exclude',
): string {
  const company = companyColumn === null ? '' : ` AND ${alias}.company_id = ${companyColumn}`;
  const active = suspended === 'exclude' ? ` AND ${alias}.suspended_at IS NULL` : '';
  return `${kind} membership ${alias} ON ${alias}.employee_id = ${employeeColumn}${company}${active}`;
}
