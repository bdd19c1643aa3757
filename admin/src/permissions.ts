/**
 * The page's view of the service's permission catalogue: names and labels come from the service's own module
 * (src/access/permissions/permission.ts, plain TypeScript that Vite bundles), so there is no second list to keep.
 */
import { ALL_PERMISSIONS, PERMISSION_LABELS, PERMISSIONS, grants } from '../../src/access/permissions/permission';

export const ALL = ALL_PERMISSIONS;

/** The service's own rule, typed by its names: a check for a permission that does not exist does not compile. */
export const holds = grants;

/** Whether `held` covers every grant of `wanted` (only `*` covers `*`), the API's rule for handing out grants. */
export function covers(held: readonly string[], wanted: readonly string[]): boolean {
  if (held.includes(ALL)) return true;
  return wanted.every((grant) => grant !== ALL && held.includes(grant));
}

/** The grants a holder of `held` may hand out: `*` first when held, then each single permission. */
export function grantable(held: readonly string[]): string[] {
  return held.includes(ALL) ? [ALL, ...PERMISSIONS] : PERMISSIONS.filter((n) => held.includes(n));
}

export function labelOf(grant: string): string {
  if (grant === ALL) return 'Everything (*)';
  return (PERMISSION_LABELS as Record<string, string>)[grant] ?? grant;
}
