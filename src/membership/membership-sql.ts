/**
 * The membership table as other folders' single statements may reach it: a credential look-up reads the
 * permissions with the credential, an event for an account goes to each of its companies. Its name and keys
 * are written only in src/membership/; changes go through membership-records.ts.
 */

/**
 * `<kind> membership <alias> ON <alias>.employee_id = <employeeColumn> [AND <alias>.company_id = <companyColumn>]`;
 * the caller reads `<alias>.permissions`, `<alias>.company_id`. A LEFT JOIN leaves permissions null for a
 * removed member.
 */
export function membershipJoin(
  alias: string,
  employeeColumn: string,
  companyColumn: string | null,
  kind: 'JOIN' | 'LEFT JOIN' = 'JOIN',
): string {
  const company = companyColumn === null ? '' : ` AND ${alias}.company_id = ${companyColumn}`;
  return `${kind} membership ${alias} ON ${alias}.employee_id = ${employeeColumn}${company}`;
}
