import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/**
 * The folder rules of `npm run lint:deps` (scripts/check-boundaries.js) must fail on a change that breaks them.
 * Each case writes a tiny src/ tree into a temporary folder and runs the real script and config on it.
 */
const SCRIPT = resolve(__dirname, '..', '..', 'scripts', 'check-boundaries.js');

function checkTree(files: Record<string, string>): { status: number | null; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'boundaries-'));
  try {
    const tree = { 'tsconfig.json': '{"compilerOptions":{"module":"commonjs","strict":true}}', ...files };
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
  const line = out.split('\n')[0].replace(/ \(\d+ files, \d+ imports\)$/, '');
  return Object.fromEntries(
    line.split(', ').map((part) => {
      const at = part.lastIndexOf(': ');
      return [part.slice(0, at), Number(part.slice(at + 2))];
    }),
  );
}

const ZEROS = {
  'files over 250 lines': 0,
  'folder pairs importing each other': 0,
  'folder cycles (any length)': 0,
  'tables named outside their owner': 0,
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
      'src/main.ts': "import { b } from './b/b';\nexport const main = b;\n",
      'src/b/b.ts': "import { c } from '../c/c';\nexport const b = c;\n",
      'src/c/c.ts': 'export const c = 1;\n',
    });
    expect(counts(result.out)).toEqual(ZEROS);
    expect(result.status).toBe(0);
  });

  it('fails on a cycle that is also two folders importing each other', () => {
    const result = checkTree({
      'src/a/a.ts': "import { b } from '../b/b';\nexport const a = (): number => b();\n",
      'src/b/b.ts': "import { a } from '../a/a';\nexport const b = (): number => a();\n",
    });
    expect(result.status).toBe(1);
    expect(counts(result.out)).toMatchObject({ 'folder pairs importing each other': 1, cycles: 1 });
    expect(result.out).toMatch(/error no-circular: src\/(a\/a|b\/b)\.ts → /);
    expect(result.out).toContain('error no-mutual-folders: src/a ⇄ src/b');
  });

  it('fails on two folders importing each other without a file cycle', () => {
    const result = checkTree({
      'src/a/one.ts': "import { two } from '../b/two';\nexport const one = two;\n",
      'src/b/three.ts': "import { four } from '../a/four';\nexport const three = four;\n",
      'src/b/two.ts': 'export const two = 2;\n',
      'src/a/four.ts': 'export const four = 4;\n',
    });
    expect(result.status).toBe(1);
    expect(counts(result.out)).toMatchObject({
      'folder pairs importing each other': 1,
      'folder cycles (any length)': 1,
      cycles: 0,
    });
    expect(result.out).toContain('error no-mutual-folders: src/a ⇄ src/b');
    expect(result.out).toContain('error no-folder-cycle: src/a → src/b → src/a');
  });

  it('fails on three folders importing each other in a ring, which no pair and no file cycle shows', () => {
    const result = checkTree({
      'src/auth/guard.ts': "import { member } from '../membership/member';\nexport const guard = member;\n",
      'src/membership/member.ts': "import { company } from '../company/company';\nexport const member = company;\n",
      'src/company/company.ts': "import { token } from '../auth/token';\nexport const company = token;\n",
      'src/auth/token.ts': 'export const token = 1;\n',
    });
    expect(result.status).toBe(1);
    expect(counts(result.out)).toEqual({
      ...ZEROS,
      'folder cycles (any length)': 1,
    });
    expect(result.out).toContain('error no-folder-cycle: src/auth → src/membership → src/company → src/auth');
  });

  it('fails on a table named outside the folder of its entity: SQL, a query builder, a repository call', () => {
    const result = checkTree({
      'src/membership/membership.entity.ts': ENTITY('membership', 'Membership'),
      // The owner names its own table freely.
      'src/membership/records.ts':
        "import { Membership } from './membership.entity';\n" +
        "export const sql = 'DELETE FROM membership WHERE employee_id = $1';\n" +
        'export const owner = (m: { getRepository(x: unknown): unknown }) => m.getRepository(Membership);\n',
      'src/invitations/accept.ts': 'export const sql = `INSERT INTO membership (employee_id) VALUES ($1)`;\n',
      'src/company/list.ts':
        'export const list = (b: { innerJoin(...a: string[]): unknown }) =>\n' +
        "  b.innerJoin('membership', 'm', 'm.company_id = company.id');\n",
      'src/users/users.ts':
        "import { Membership } from '../membership/membership.entity';\n" +
        'export const users = (m: { getRepository(x: unknown): unknown }) => m.getRepository(Membership);\n',
      // Neither a comment, nor prose in a message, nor a migration counts.
      'src/auth/note.ts':
        '// UPDATE membership is the owner’s business\n' +
        "export const message = 'The account does not belong to this membership.';\n",
      'src/database/migrations/1-init.ts': "export const up = 'CREATE TABLE membership (employee_id int)';\n",
    });
    expect(result.status).toBe(1);
    expect(counts(result.out)).toEqual({ ...ZEROS, 'tables named outside their owner': 3 });
    expect(result.out).toContain(
      'error table-outside-owner: src/company/list.ts names membership (owned by src/membership)',
    );
    expect(result.out).toContain(
      'error table-outside-owner: src/invitations/accept.ts names membership (owned by src/membership)',
    );
    expect(result.out).toContain(
      'error table-outside-owner: src/users/users.ts names membership (owned by src/membership)',
    );
  });

  it('fails on a file over 250 lines', () => {
    const result = checkTree({ 'src/a/long.ts': 'export const x = 1;\n'.repeat(251) });
    expect(result.status).toBe(1);
    expect(counts(result.out)).toEqual({ ...ZEROS, 'files over 250 lines': 1 });
    expect(result.out).toContain('error max-file-lines: src/a/long.ts');
  });

  it('fails when the service imports a test helper or the page imports a server module', () => {
    const result = checkTree({
      'src/a/a.ts': "import { helper } from '../../test/support/helper';\nexport const a = helper;\n",
      'test/support/helper.ts': 'export const helper = 1;\n',
      'src/database/db.ts': 'export const db = 1;\n',
      'admin/src/page.ts': "import { db } from '../../src/database/db';\nexport const page = db;\n",
    });
    expect(result.status).toBe(1);
    expect(result.out).toContain('error src-not-to-test: src/a/a.ts → test/support/helper.ts');
    expect(result.out).toContain(
      'error admin-shares-only-browser-safe-modules: admin/src/page.ts → src/database/db.ts',
    );
  });
});
