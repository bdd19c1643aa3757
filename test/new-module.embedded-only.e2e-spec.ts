import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/**
 * docs/adding-a-feature-module.md followed literally: in a copy of this working tree, `npm run new:module --
 * notes` adds a two-route module, and the result passes the checks `npm test` would run on it (typecheck, ESLint,
 * Prettier, the folder rules, the route table, the repository's checks of its documents) and its own generated
 * e2e test. Embedded database only: the
 * generated test runs on whatever database its child jest picks, and one run shows the scaffold works.
 */
const ROOT = resolve(__dirname, '..');
const BIN = join(ROOT, 'node_modules', '.bin');

describe('npm run new:module (the module guide, followed literally)', () => {
  let copy: string;

  beforeAll(() => {
    copy = join(mkdtempSync(join(tmpdir(), 'new-module-')), 'repo');
    const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT })
      .toString()
      .split('\0')
      .filter((file) => file !== '');
    // A file deleted in the working tree but still in the index is not copied.
    for (const file of files.filter((name) => existsSync(join(ROOT, name)))) {
      mkdirSync(dirname(join(copy, file)), { recursive: true });
      cpSync(join(ROOT, file), join(copy, file));
    }
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  });
  afterAll(() => rmSync(dirname(copy), { recursive: true, force: true }));

  /** A child process in the copy, without this jest run's variables (its run id names the shared database folder). */
  const run = (command: string, args: string[]) => {
    const env = { ...process.env };
    for (const name of ['JEST_RUN_ID', 'JEST_WORKER_ID', 'TEST_DB', 'NODE_ENV']) delete env[name];
    const result = spawnSync(command, args, { cwd: copy, env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
    return { status: result.status, out: `${result.stdout}${result.stderr}` };
  };
  const expectSuccess = (result: { status: number | null; out: string }) => {
    if (result.status !== 0) throw new Error(result.out);
  };

  it('writes a module that typechecks, lints, keeps the folder rules and passes its own test', () => {
    const generated = run('npm', ['run', '-s', 'new:module', '--', 'notes']);
    expectSuccess(generated);
    expect(generated.out).toContain('created src/notes/notes.controller.ts');
    expect(generated.out).toContain('created test/notes.e2e-spec.ts');

    // The module's own files, its migration and the one shared list (docs/feature-modules.md is not code).
    expect(generated.out).toContain('registered in src/features.ts and docs/feature-modules.md');
    const touched = ['src/notes', 'src/database/migrations', 'src/features.ts', 'test/notes.e2e-spec.ts'];
    expectSuccess(run(join(BIN, 'tsc'), ['-p', 'tsconfig.json', '--noEmit', '--incremental', 'false']));
    expectSuccess(run(join(BIN, 'tsc'), ['-p', 'admin/tsconfig.json', '--noEmit']));
    expectSuccess(run(join(BIN, 'eslint'), touched));
    expectSuccess(run(join(BIN, 'prettier'), ['--check', ...touched]));
    const boundaries = run(process.execPath, ['scripts/check-boundaries.js']);
    expectSuccess(boundaries);
    expect(boundaries.out).not.toContain('src/notes');

    const tests = run(join(BIN, 'jest'), [
      '--selectProjects',
      'unit',
      'e2e-embedded',
      '--maxWorkers=1',
      '--',
      'src/app-routes',
      'test/notes.e2e',
    ]);
    expectSuccess(tests);
    expect(tests.out).toMatch(/Tests:\s+\d+ passed, \d+ total/);
    expect(tests.out).toContain('test/notes.e2e-spec.ts');

    // The repository's own checks on the result: the generated rows of docs/feature-modules.md (permissions, APIs,
    // layout) keep the documents true, and pass as generated.
    const repository = run(join(BIN, 'jest'), ['--selectProjects', 'repository', '--maxWorkers=1']);
    const failed = [...repository.out.matchAll(/^ {2}● (.+)$/gm)].map((match) => match[1]).sort();
    expect(failed).toEqual([]);
    expectSuccess(repository);
    expect(repository.out).toMatch(/Tests:\s+(\d+ skipped, )?\d+ passed, \d+ total/);
  }, 300_000);
});
