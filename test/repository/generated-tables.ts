import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ERROR_CATALOG } from '../../src/platform/common/errors/error-catalog';
import { ErrorCode } from '../../src/platform/common/errors/error-codes';
import {
  FEATURE_PERMISSIONS,
  PERMISSION_LABELS,
  PERMISSIONS,
  type Permission,
} from '../../src/access/permissions/permission';

/**
 * The tables of docs/ that are produced from the code. Each sits right after a marker line
 * `<!-- generated: <name> … -->`; its test compares the whole table with what the code says, and prints the
 * table when they differ, so that it can be pasted in.
 */
export const ROOT = resolve(__dirname, '..', '..');

export const readDoc = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The table (its `|` lines, joined) after the marker `<!-- generated: <name>`; '' when there is none. */
export function generatedTable(markdown: string, name: string): string {
  const lines = markdown.split('\n');
  const at = lines.findIndex((line) => line.startsWith(`<!-- generated: ${name} `));
  if (at < 0) return '';
  const table: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (!line.startsWith('|')) break;
    table.push(line);
  }
  return table.join('\n');
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/**
 * The permissions of src/access/permissions/permission.ts (`'core'`: the core modules', in docs/api.md; `'features'`:
 * those of the modules of src/features.ts, in docs/feature-modules.md) with the label the administration page shows.
 */
export function permissionsTable(which: 'core' | 'features' = 'core'): string {
  const feature = new Set<Permission>(FEATURE_PERMISSIONS);
  const listed = PERMISSIONS.filter((permission) => feature.has(permission) === (which === 'features'));
  const rows = listed.map((permission) => `| \`${permission}\` | ${cell(PERMISSION_LABELS[permission])} |`);
  return ['| permission | what it allows (as the administration page names it) |', '|---|---|', ...rows].join('\n');
}

/** Every error code of src/platform/common/errors/error-codes.ts with its one status and when it is answered. */
export function errorCodesTable(): string {
  const rows = Object.values(ErrorCode).map(
    (code) => `| ${ERROR_CATALOG[code].status} | \`${code}\` | ${cell(ERROR_CATALOG[code].when)} |`,
  );
  return ['| status | code | when |', '|---|---|---|', ...rows].join('\n');
}

/** Expects the doc's generated table `name` to equal `expected`, printing `expected` when it does not. */
export function expectGeneratedTable(doc: string, name: string, expected: string): void {
  const shown = generatedTable(readDoc(doc), name);
  if (shown !== expected) console.log(`${doc}, the generated table "${name}" should be:\n${expected}`);
  expect(shown).toBe(expected);
}
