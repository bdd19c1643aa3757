/**
 * The feature modules added with `npm run new:module`, one line per module: its folder (where
 * `src/features/<folder>/<folder>.module.ts` exports the module class, decorated with `@Feature` for its entities and
 * migrations) and its permissions with the labels the administration page shows. The one shared file the
 * generator edits: `.gitattributes` merges it with `merge=union`, so two modules added on two branches merge
 * without a conflict (each branch adds one line). Plain data, no imports: the permission catalogue and the page
 * read it (see docs/adding-a-feature-module.md).
 */
// prettier-ignore
export const FEATURES = [
  { folder: 'files', permissions: { 'files:write': 'Upload files' } },
  { folder: 'products', permissions: { 'products:read': 'See products', 'products:write': 'Change products' } },
  { folder: 'orders', permissions: { 'orders:read': 'See orders', 'orders:write': 'Change orders' } },
  { folder: 'marketing-conversations', permissions: { 'marketingconversations:read': 'See marketing conversations', 'marketingconversations:write': 'Write marketing conversations' } },
] as const satisfies readonly FeatureEntry[];

export interface FeatureEntry {
  /** kebab-case folder under src/features/, e.g. `notes`. */
  readonly folder: string;
  /** Permission name → what it lets a holder do (the administration page's label). */
  readonly permissions: Readonly<Record<string, string>>;
}
