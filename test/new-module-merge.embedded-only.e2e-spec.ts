import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/**
 * docs/adding-a-feature-module.md followed literally, by two teams each adding a module at once: in a git repository made from this working tree, `npm run new:module`
 * runs on two branches with two names, each branch changes no shared file but src/features.ts (and its rows of
 * docs/feature-modules.md), git merges the two without a conflict (both files merge=union, .gitattributes), and the
 * result passes the checks `npm test` runs on code: typecheck, ESLint, Prettier, the layout rules, the unit specs
 * the change reaches and every repository check, and each module's own generated e2e test; the built TypeORM CLI (ormconfig.ts) then lists both modules' migrations. Only
 * that step opens a database (an embedded one, in the temporary folder); it sits with the other generator test.
 */
const ROOT = resolve(__dirname, '..');
const BIN = join(ROOT, 'node_modules', '.bin');

describe('two modules generated on two branches', () => {
  let repo: string;

  beforeAll(() => {
    repo = join(mkdtempSync(join(tmpdir(), 'new-module-merge-')), 'repo');
    const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT })
      .toString()
      .split('\0')
      .filter((file) => file !== '');
    for (const file of files.filter((name) => existsSync(join(ROOT, name)))) {
      mkdirSync(dirname(join(repo, file)), { recursive: true });
      cpSync(join(ROOT, file), join(repo, file));
    }
    git('init', '-q', '-b', 'base');
    git('add', '-A');
    git('commit', '-q', '-m', 'base');
    // After the commit, so that git never sees it (it is a symlink to this tree's dependencies).
    symlinkSync(join(ROOT, 'node_modules'), join(repo, 'node_modules'), 'dir');
  });
  afterAll(() => rmSync(dirname(repo), { recursive: true, force: true }));

  /** A child process in the repository, without this jest run's variables (its run id names shared folders). */
  const run = (command: string, args: string[], extraEnv: Record<string, string> = {}) => {
    const env = { ...process.env, ...extraEnv };
    for (const name of ['JEST_RUN_ID', 'JEST_WORKER_ID', 'TEST_DB', 'NODE_ENV']) delete env[name];
    const result = spawnSync(command, args, { cwd: repo, env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
    return { status: result.status, out: `${result.stdout}${result.stderr}` };
  };
  const expectSuccess = (result: { status: number | null; out: string }) => {
    if (result.status !== 0) throw new Error(result.out);
    return result.out;
  };
  function git(...args: string[]): string {
    return expectSuccess(
      run('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args]),
    );
  }

  /** On a new branch from `base`: `npm run new:module -- <name>`, committed; answers the files it changed. */
  const generateOnBranch = (name: string): string[] => {
    git('checkout', '-q', '-b', name, 'base');
    const generated = expectSuccess(run('npm', ['run', '-s', 'new:module', '--', name]));
    expect(generated).toContain(`created src/features/${name}/${name}.controller.ts`);
    expect(generated).toContain(`created test/${name}.e2e-spec.ts`);
    // The module's own files, its migration and the one shared list (docs/feature-modules.md is not code).
    expect(generated).toContain('registered in src/features.ts and docs/feature-modules.md');
    git('add', '-A');
    git('commit', '-q', '-m', `new:module ${name}`);
    return git('diff', '--name-status', 'base', name).trim().split('\n');
  };

  it('merge without a conflict and pass the checks of npm test', () => {
    for (const name of ['notes', 'memos']) {
      const changed = generateOnBranch(name);
      // Only new files, and the two union-merged lists.
      expect(changed.filter((line) => !line.startsWith('A\t'))).toEqual([
        'M\tdocs/feature-modules.md',
        'M\tsrc/features.ts',
      ]);
      expect(changed).toContain(`A\tsrc/features/${name}/${name}.module.ts`);
      expect(changed).toContain(`A\tsrc/features/${name}/${name}.routes.txt`);
    }

    git('checkout', '-q', 'notes');
    const merge = run('git', [
      '-c',
      'user.name=Test',
      '-c',
      'user.email=test@example.com',
      'merge',
      '--no-edit',
      'memos',
    ]);
    expect(merge).toEqual({ status: 0, out: expect.not.stringContaining('CONFLICT') });
    expect(git('diff', '--name-only', '--diff-filter=U')).toBe('');
    const features = readFileSync(join(repo, 'src/features.ts'), 'utf8');
    expect(features).toContain("{ folder: 'notes', permissions: { 'notes:read'");
    expect(features).toContain("{ folder: 'memos', permissions: { 'memos:read'");
    expect(readFileSync(join(repo, 'docs/feature-modules.md'), 'utf8')).toMatch(/notes:write[\s\S]*memos:write/);

    const changed = git('diff', '--name-only', 'base', 'HEAD').trim().split('\n');
    const code = changed.filter((file) => /\.(ts|js)$/.test(file));
    expectSuccess(run(join(BIN, 'tsc'), ['-p', 'tsconfig.json', '--noEmit', '--incremental', 'false']));
    expectSuccess(run(join(BIN, 'tsc'), ['-p', 'admin/tsconfig.json', '--noEmit']));
    expectSuccess(run(join(BIN, 'eslint'), code));
    expectSuccess(run(join(BIN, 'prettier'), ['--check', ...code]));
    const boundaries = expectSuccess(run(process.execPath, ['scripts/check-boundaries.js']));
    expect(boundaries).toContain('cycles: 0');

    // Each module's routes match its own table; the shared table is untouched; everything passes as generated:
    // every repository check (they read documents, not imports) and every unit spec that imports, directly or
    // not, a file the merge changed (jest --findRelatedTests): the route tables, the permission catalogue, the
    // app module. Unit specs of code the merge cannot reach (the storages, the embedded driver) are npm test's.
    const tests = run(join(BIN, 'jest'), [
      '--selectProjects',
      'unit',
      '--maxWorkers=1',
      '--verbose',
      '--findRelatedTests',
      ...code,
    ]);
    const repository = run(join(BIN, 'jest'), ['--selectProjects', 'repository', '--maxWorkers=1', '--verbose']);
    const failed = [
      ...new Set([...`${tests.out}${repository.out}`.matchAll(/^ {2}● (.+)$/gm)].map((match) => match[1])),
    ]
      .filter((title) => title !== 'Console')
      .sort();
    expect(failed).toEqual([]);
    expectSuccess(tests);
    expectSuccess(repository);
    expect(tests.out).toContain('src/app-routes.spec.ts');
    expect(tests.out).toMatch(/✓ of the feature module notes match its reviewed table/);
    expect(tests.out).toMatch(/✓ of the feature module memos match its reviewed table/);
    expect(repository.out).toMatch(/Tests:\s+(\d+ skipped, )?\d+ passed, \d+ total/);
    expect(tests.out).toMatch(/Tests:\s+(\d+ skipped, )?\d+ passed, \d+ total/);

    // Each module's own generated e2e test, as the guide runs it: the scaffold works end to end.
    const own = run(join(BIN, 'jest'), [
      '--selectProjects',
      'e2e-embedded',
      '--maxWorkers=1',
      '--',
      'test/notes.e2e',
      'test/memos.e2e',
    ]);
    expectSuccess(own);
    expect(own.out).toContain('test/notes.e2e-spec.ts');
    expect(own.out).toContain('test/memos.e2e-spec.ts');
    expect(own.out).toMatch(/Tests:\s+\d+ passed, \d+ total/);

    // The migration CLI's DataSource (ormconfig.ts, built) reads the same list: both modules' migrations are due.
    expectSuccess(run(join(BIN, 'tsc'), ['-p', 'tsconfig.build.json']));
    const cli = join(repo, 'node_modules', 'typeorm', 'cli.js');
    const show = run(process.execPath, [cli, '-d', 'dist/ormconfig.js', 'migration:show'], {
      DATA_DIR: join(dirname(repo), 'data'),
    });
    expect(show.out).toMatch(/^\[ \] CreateNotes\d{13}$/m);
    expect(show.out).toMatch(/^\[ \] CreateMemos\d{13}$/m);
  }, 300_000);
});
