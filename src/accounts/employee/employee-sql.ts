/**
 * The employee table as other folders' single statements may reach it. A read that must stay one statement (a
 * credential look-up, an event for every company of an account) joins through these rather than naming the
 * table itself, so the table's name and keys are written only in src/accounts/employee/. Changes go through the
 * functions of employee-records.ts.
 */

/** `JOIN employee <alias> ON <alias>.id = <idColumn>`; the caller reads `<alias>.email`, `<alias>.name`. */
export function employeeJoin(alias: string, idColumn: string): string {
  return `JOIN employee ${alias} ON ${alias}.id = ${idColumn}`;
}

/** `FROM employee <alias>`, for a statement that starts from the account. */
export function employeeFrom(alias: string): string {
  return `FROM employee ${alias}`;
}
