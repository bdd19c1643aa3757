import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/**
 * The layout rules of `npm run lint:deps` (scripts/check-boundaries.js) must fail on a change that breaks them.
 * Each case writes a tiny src/ tree into a temporary folder and runs the real script and config on it: areas
 * `low` and `high` (src/areas.json, lowest first) unless the case writes its own list.
 */
const SCRIPT = resolve(__dirname, '..', '..', 'scripts', 'check-boundaries.js');

function checkTree(files: Record<string, string>): { status: number | null; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'boundaries-'));
  try {
    const tree = {
      'tsconfig.json': '{"compilerOptions":{"module":"commonjs","strict":true}}',
      'src/areas.json': AREAS('low', 'high', 'accounts', 'identity', 'staff', 'platform'),
      ...files,
    };
    for (const [path, text] of Object.entries(tree)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const run = spawnSync(process.execPath, [SCRIPT], { cwd: dir, encoding: 'utf8' });
    return { status: run.status, out: run.stdout + run.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The counts of the script's first line, by name: `{ 'folder pairs importing each other': 1, … }`. */
function counts(out: string): Record<string, number> {
  const line = out.split('\n')[0].replace(/ \([^)]*\)$/, '');
  return Object.fromEntries(
    line.split(', ').map((part) => {
      const at = part.lastIndexOf(': ');
      return [part.slice(0, at), Number(part.slice(at + 2))];
    }),
  );
}

const AREAS = (...names: string[]) => JSON.stringify({ areas: names.map((area) => ({ area })) });

const ZEROS = {
  'files over 250 lines': 0,
  'module pairs importing each other': 0,
  'module cycles (any length)': 0,
  'back-edges between areas': 0,
  'misplaced files and root imports': 0,
  'tables named outside their owner': 0,
  'SQL fragments outside their area': 0,
  cycles: 0,
  'other import rule violations': 0,
};

/** An entity without TypeORM (the fixture has no node_modules): only the decorator's text matters. */
const ENTITY = (table: string, name: string) =>
  `const Entity = (_options: unknown) => (target: unknown) => target;\n` +
  `@Entity({ name: '${table}' })\nexport class ${name} {\n  id = 0;\n}\n`;

describe('npm run lint:deps', () => {
  it('passes a tree that keeps the rules and reports zeros', () => {
    const result = checkTree({
      'src/main.ts': "import { b } from './high/b/b';\nexport const main = b;\n",
      'src/high/b/b.ts': "import { c } from '../../low/c/c';\nimport { d } from '../d/d';\nexport const b = c + d;\n",
      'src/high/d/d.ts': "import { FEATURES } from '../../features';\nexport const d = FEATURES.length;\n",
      'src/low/c/c.ts': 'export const c = 1;\n',
      // A root file of plain data may be read by an area (the page and the catalogue read the feature list).
      'src/features.ts': 'export const FEATURES = [] as const;\n',
    });
    expect(counts(result.out)).toEqual(ZEROS);
    expect(result.out).toContain('(6 areas, 3 modules,');
    expect(result.status).toBe(0);
  });

  it('fails on an import from an area into a later one (a back-edge), even without a cycle', () => {
    const result = checkTree({
      'src/low/c/c.ts': "import { b } from '../../high/b/b';\nexport const c = b;\n",
      'src/high/b/b.ts': 'export const b = 1;\n',
    });
    expect(result.status).toBe(1);
    expect(counts(result.out)).toEqual({ ...ZEROS, 'back-edges between areas': 1 });
    expect(result.out).toContain('error no-back-edge: src/low/c → src/high/b (high comes after low)');
  });

  it('fails on a folder of src/ that is no listed area, a file outside any module, and an area importing the root', () => {
    const result = checkTree({
      'src/main.ts': "import { c } from './low/c/c';\nexport const main = c;\n",
      'src/elsewhere/x/x.ts': 'export const x = 1;\n',
      'src/low/loose.ts': 'export const loose = 1;\n',
      'src/low/c/c.ts': "import { main } from '../../wiring';\nexport const c = main;\n",
      'src/wiring.ts': "import { b } from './high/b/b';\nexport const main = b;\n",
      'src/high/b/b.ts': 'export const b = 1;\n',
    });
    expect(result.status).toBe(1);
    expect(counts(result.out)).toMatchObject({ 'misplaced files and root imports': 3 });
    expect(result.out).toContain('error unknown-area: src/elsewhere/ is not in src/areas.json');
    expect(result.out).toContain('error file-outside-module: src/low/loose.ts');
    expect(result.out).toContain('error no-root-import: src/low/c/c.ts → src/wiring.ts');
  });

  it('fails on a cycle that is also two modules importing each other', () => {
    const result = checkTree({
      'src/low/a/a.ts': "import { b } from '../b/b';\nexport const a = (): number => b();\n",
      'src/low/b/b.ts': "import { a } from '../a/a';\nexport const b = (): number => a();\n",
    });
    expect(result.status).toBe(1);
    expect(counts(result.out)).toMatchObject({ 'module pairs importing each other': 1, cycles: 1 });
    expect(result.out).toMatch(/error no-circular: src\/low\/(a\/a|b\/b)\.ts → /);
    expect(result.out).toContain('error no-mutual-modules: src/low/a ⇄ src/low/b');
  });

  it('fails on two modules importing each other without a file cycle', () => {
    const result = checkTree({
      'src/low/a/one.ts': "import { two } from '../b/two';\nexport const one = two;\n",
      'src/low/b/three.ts': "import { four } from '../a/four';\nexport const three = four;\n",
      'src/low/b/two.ts': 'export const two = 2;\n',
      'src/low/a/four.ts': 'export const four = 4;\n',
    });
    expect(result.status).toBe(1);
    expect(counts(result.out)).toMatchObject({
      'module pairs importing each other': 1,
      'module cycles (any length)': 1,
      cycles: 0,
    });
    expect(result.out).toContain('error no-mutual-modules: src/low/a ⇄ src/low/b');
    expect(result.out).toContain('error no-module-cycle: src/low/a → src/low/b → src/low/a');
  });

  it('fails on three modules importing each other in a ring, which no pair and no file cycle shows', () => {
    const result = checkTree({
      'src/low/auth/guard.ts': "import { member } from '../membership/member';\nexport const guard = member;\n",
      'src/low/membership/member.ts': "import { company } from '../company/company';\nexport const member = company;\n",
      'src/low/company/company.ts': "import { token } from '../auth/token';\nexport const company = token;\n",
      'src/low/auth/token.ts': 'export const token = 1;\n',
    });
    expect(result.status).toBe(1);
    expect(counts(result.out)).toEqual({
      ...ZEROS,
      'module cycles (any length)': 1,
    });
    expect(result.out).toContain(
      'error no-module-cycle: src/low/auth → src/low/membership → src/low/company → src/low/auth',
    );
  });

  it('fails on a table named outside the folder of its entity: SQL, a query builder, a repository call', () => {
    const result = checkTree({
      'src/accounts/membership/membership.entity.ts': ENTITY('membership', 'Membership'),
      // The owner names its own table freely.
      'src/accounts/membership/records.ts':
        "import { Membership } from './membership.entity';\n" +
        "export const sql = 'DELETE FROM membership WHERE employee_id = $1';\n" +
        'export const owner = (m: { getRepository(x: unknown): unknown }) => m.getRepository(Membership);\n',
      'src/staff/invitations/accept.ts': 'export const sql = `INSERT INTO membership (employee_id) VALUES ($1)`;\n',
      'src/accounts/company/list.ts':
        'export const list = (b: { innerJoin(...a: string[]): unknown }) =>\n' +
        "  b.innerJoin('membership', 'm', 'm.company_id = company.id');\n",
      'src/staff/users/users.ts':
        "import { Membership } from '../../accounts/membership/membership.entity';\n" +
        'export const users = (m: { getRepository(x: unknown): unknown }) => m.getRepository(Membership);\n',
      // Neither a comment, nor prose in a message, nor a migration counts.
      'src/identity/auth/note.ts':
        '// UPDATE membership is the owner’s business\n' +
        "export const message = 'The account does not belong to this membership.';\n",
      'src/platform/database/migrations/1-init.ts': "export const up = 'CREATE TABLE membership (employee_id int)';\n",
    });
    expect(result.status).toBe(1);
    expect(counts(result.out)).toEqual({ ...ZEROS, 'tables named outside their owner': 3 });
    expect(result.out).toContain(
      'error table-outside-owner: src/accounts/company/list.ts names membership (owned by src/accounts/membership)',
    );
    expect(result.out).toContain(
      'error table-outside-owner: src/staff/invitations/accept.ts names membership (owned by src/accounts/membership)',
    );
    expect(result.out).toContain(
      'error table-outside-owner: src/staff/users/users.ts names membership (owned by src/accounts/membership)',
    );
  });

  it('fails on an SQL fragment imported by another area, not by another module of its own area', () => {
    const result = checkTree({
      'src/accounts/employee/employee-sql.ts':
        'export const employeeJoin = (a: string, id: string) => `JOIN employee ${a} ON ${a}.id = ${id}`;\n',
      // The area's own modules may join through it: one statement for an area's read.
      'src/accounts/membership/records.ts':
        "import { employeeJoin } from '../employee/employee-sql';\n" +
        "export const members = `SELECT e.email FROM membership m ${employeeJoin('e', 'm.employee_id')}`;\n",
      'src/identity/sessions/ended.ts':
        "import { employeeJoin } from '../../accounts/employee/employee-sql';\n" +
        "export const ended = `SELECT e.email FROM login_session s ${employeeJoin('e', 's.employee_id')}`;\n",
    });
    expect(result.status).toBe(1);
    expect(counts(result.out)).toEqual({ ...ZEROS, 'SQL fragments outside their area': 1 });
    expect(result.out).toContain(
      'error no-sql-fragment-across-areas: src/identity/sessions/ended.ts → src/accounts/employee/employee-sql.ts',
    );
  });

  it('fails on a file over 250 lines', () => {
    const result = checkTree({ 'src/low/a/long.ts': 'export const x = 1;\n'.repeat(251) });
    expect(result.status).toBe(1);
    expect(counts(result.out)).toEqual({ ...ZEROS, 'files over 250 lines': 1 });
    expect(result.out).toContain('error max-file-lines: src/low/a/long.ts');
  });

  it('fails when the service imports a test helper or the page imports a server module', () => {
    const result = checkTree({
      'src/low/a/a.ts': "import { helper } from '../../../test/support/helper';\nexport const a = helper;\n",
      'test/support/helper.ts': 'export const helper = 1;\n',
      'src/platform/database/db.ts': 'export const db = 1;\n',
      'admin/src/page.ts': "import { db } from '../../src/platform/database/db';\nexport const page = db;\n",
    });
    expect(result.status).toBe(1);
    expect(result.out).toContain('error src-not-to-test: src/low/a/a.ts → test/support/helper.ts');
    expect(result.out).toContain(
      'error admin-shares-only-browser-safe-modules: admin/src/page.ts → src/platform/database/db.ts',
    );
  });
});
