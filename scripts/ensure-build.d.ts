/** The first reason to rebuild the service (`dist/` from `src/`), or null when its build is current. */
export function serverStaleBecause(root?: string): string | null;
/** The first reason to rebuild the administration page (`dist/admin` from `admin/`), or null when current. */
export function adminStaleBecause(root?: string): string | null;
/** Rebuilds what is not current: the service, and the administration page when `admin` is set. */
export function ensureBuild(options?: { admin?: boolean }): void;
