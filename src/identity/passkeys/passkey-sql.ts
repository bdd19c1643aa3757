/**
 * The passkey table as other modules of identity/ may reach it in their single statements (a fragment never
 * leaves its area: docs/adding-a-feature-module.md, "One way to the database").
 */

/**
 * The number of passkeys of the employee whose id is the SQL expression `employeeId`, as a column of the
 * credential look-ups (so `GET /v1/users/me` still reads no table of its own).
 */
export const passkeyCountColumn = (employeeId: string) =>
  `(SELECT count(*)::int FROM passkey pk WHERE pk.employee_id = ${employeeId})`;
