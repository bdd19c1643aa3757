/**
 * The company table as other folders' single statements may reach it (a credential look-up reads the
 * company's name with the credential), so its name and key are written only in src/accounts/company/.
 */

/** `JOIN company <alias> ON <alias>.id = <idColumn>`; the caller reads `<alias>.name`. */
export function companyJoin(alias: string, idColumn: string): string {
  return `JOIN company ${alias} ON ${alias}.id = ${idColumn}`;
}
