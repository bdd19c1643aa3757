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

describe('npm run lint:deps', () => {
  it('passes a tree that keeps the rules and reports zeros', () => {
    const result = checkTree({
      'src/main.ts': "import { b } from './b/b';\nexport const main = b;\n",
      'src/b/b.ts': "import { c } from '../c/c';\nexport const b = c;\n",
      'src/c/c.ts': 'export const c = 1;\n',
    });
    expect(result.out).toContain('files over 250 lines: 0, folder pairs importing each other: 0, cycles: 0');
    expect(result.status).toBe(0);
  });

  it('fails on a cycle that is also two folders importing each other', () => {
    const result = checkTree({
      'src/a/a.ts': "import { b } from '../b/b';\nexport const a = (): number => b();\n",
      'src/b/b.ts': "import { a } from '../a/a';\nexport const b = (): number => a();\n",
    });
    expect(result.status).toBe(1);
    expect(result.out).toContain('folder pairs importing each other: 1, cycles: 1');
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
    expect(result.out).toContain('folder pairs importing each other: 1, cycles: 0');
    expect(result.out).toContain('error no-mutual-folders: src/a ⇄ src/b');
  });

  it('fails on a file over 250 lines', () => {
    const result = checkTree({ 'src/a/long.ts': 'export const x = 1;\n'.repeat(251) });
    expect(result.status).toBe(1);
    expect(result.out).toContain('files over 250 lines: 1');
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
