import { FEATURES } from '../../features';

/**
 * The core modules' permissions, before those of the feature modules (src/features.ts); `*` grants all. The
 * contract (docs/contract.md) names these and those of its feature modules products, orders, files and
 * marketing-conversations (test/repository/permissions-documented.spec.ts).
 */
export const CORE_PERMISSIONS = [
  'users:read',
  'users:write',
  'apikeys:manage',
  'auditevents:read',
  'sso:manage',
  'tokens:introspect',
] as const;

type CorePermission = (typeof CORE_PERMISSIONS)[number];
type FeaturePermissionOf<F> = F extends { readonly permissions: infer P } ? keyof P & string : never;
/** A permission a feature module of src/features.ts brings, one of its line's `permissions`. */
export type FeaturePermission = FeaturePermissionOf<(typeof FEATURES)[number]>;
export type Permission = CorePermission | FeaturePermission;

/** The feature modules' permissions, in the order of src/features.ts. */
export const FEATURE_PERMISSIONS: readonly FeaturePermission[] = FEATURES.flatMap(
  (feature: { permissions: Readonly<Record<string, string>> }) =>
    Object.keys(feature.permissions) as FeaturePermission[],
);
/** Every permission: the contract's, then the feature modules'. */
export const PERMISSIONS: readonly Permission[] = [...CORE_PERMISSIONS, ...FEATURE_PERMISSIONS];

/**
 * What each permission lets a holder do, as the administration page shows it. Beside the names so that a new
 * permission is one edit here: the page imports both (admin/src/permissions.ts), and a name without a label
 * does not compile.
 */
const CORE_PERMISSION_LABELS: Record<CorePermission, string> = {
  'users:read': 'See employees',
  'users:write': 'Add employees, change permissions',
  'apikeys:manage': 'Manage API keys',
  'auditevents:read': 'See the activity log',
  'sso:manage': 'Manage single sign-on and SCIM tokens',
  'tokens:introspect': 'Introspect tokens (for other services)',
};
export const PERMISSION_LABELS = Object.assign(
  {},
  CORE_PERMISSION_LABELS,
  ...FEATURES.map((feature: { permissions: Readonly<Record<string, string>> }) => feature.permissions),
) as Record<Permission, string>;
export const ALL_PERMISSIONS = '*';
export type Grant = Permission | typeof ALL_PERMISSIONS;
/** Every grant by name, `*` last: the values a request may send (and the OpenAPI enum of such fields). */
export const GRANT_NAMES = [...PERMISSIONS, ALL_PERMISSIONS];

const KNOWN = new Set<string>([...PERMISSIONS, ALL_PERMISSIONS]);

export function isGrant(value: string): value is Grant {
  return KNOWN.has(value);
}

/** Whether a set of grants includes `needed` (`*` itself is held by `*` holders only). */
export function grants(held: readonly string[], needed: Grant): boolean {
  return held.includes(ALL_PERMISSIONS) || held.includes(needed);
}

/**
 * Parses a comma-separated list (`users:read,orders:write`, or `*`) into sorted, unique grants. Throws with the
 * first unknown name, so a typo never silently grants less (or more) than intended.
 */
export function parseGrants(list: string): Grant[] {
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) throw new Error('no permission given');
  const unknown = names.find((name) => !isGrant(name));
  if (unknown !== undefined) throw new Error(`unknown permission "${unknown}"`);
  return normalizeGrants(names as Grant[]);
}

/** Unique and sorted; `*` alone when present, since it already covers the rest. */
export function normalizeGrants(list: readonly Grant[]): Grant[] {
  if (list.includes(ALL_PERMISSIONS)) return [ALL_PERMISSIONS];
  return [...new Set(list)].sort();
}

/** The grants both lists allow, with `*` standing for everything. */
export function intersectGrants(a: readonly Grant[], b: readonly Grant[]): Grant[] {
  if (a.includes(ALL_PERMISSIONS)) return normalizeGrants(b);
  if (b.includes(ALL_PERMISSIONS)) return normalizeGrants(a);
  const inB = new Set(b);
  return normalizeGrants(a.filter((grant) => inB.has(grant)));
}

/** Whether every grant of `wanted` is held in `held`. */
export function coversAll(held: readonly Grant[], wanted: readonly Grant[]): boolean {
  if (held.includes(ALL_PERMISSIONS)) return true;
  return wanted.every((grant) => grant !== ALL_PERMISSIONS && held.includes(grant));
}
