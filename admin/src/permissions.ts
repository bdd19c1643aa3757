/** The permissions of contract.md, in the order the page lists them, with what each lets a holder do. */
export const PERMISSIONS: Array<{ name: string; label: string }> = [
  { name: 'users:read', label: 'See employees' },
  { name: 'users:write', label: 'Add employees, change permissions' },
  { name: 'products:read', label: 'See products' },
  { name: 'products:write', label: 'Change products' },
  { name: 'orders:read', label: 'See orders' },
  { name: 'orders:write', label: 'Change orders' },
  { name: 'files:write', label: 'Upload files' },
  { name: 'marketingconversations:read', label: 'See marketing conversations' },
  { name: 'marketingconversations:write', label: 'Write marketing conversations' },
  { name: 'apikeys:manage', label: 'Manage API keys' },
  { name: 'auditevents:read', label: 'See the activity log' },
];

export const ALL = '*';

export function holds(held: readonly string[], needed: string): boolean {
  return held.includes(ALL) || held.includes(needed);
}

/** Whether `held` covers every grant of `wanted` (only `*` covers `*`), the API's rule for handing out grants. */
export function covers(held: readonly string[], wanted: readonly string[]): boolean {
  if (held.includes(ALL)) return true;
  return wanted.every((grant) => grant !== ALL && held.includes(grant));
}

/** The grants a holder of `held` may hand out: `*` first when held, then each single permission. */
export function grantable(held: readonly string[]): string[] {
  return held.includes(ALL)
    ? [ALL, ...PERMISSIONS.map((p) => p.name)]
    : PERMISSIONS.map((p) => p.name).filter((n) => held.includes(n));
}

export function labelOf(grant: string): string {
  return grant === ALL ? 'Everything (*)' : (PERMISSIONS.find((p) => p.name === grant)?.label ?? grant);
}
