import { join, resolve } from 'node:path';
import { ALL_MIGRATION_NAMES } from './support/all-migrations';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { CHILD_TEST_ENV, killChildren, requireBuild, spawnNode } from './support/processes';

const ROOT = resolve(__dirname, '..');
const RUN_BUILT = join(ROOT, 'scripts', 'run-built.js');
// Absolute: the children run outside the repository, so no developer's .env is read.
const SHOW_MIGRATIONS = ['node_modules/typeorm/cli.js', '-d', join(ROOT, 'dist', 'ormconfig.js'), 'migration:show'];

jest.setTimeout(60_000);

/** The npm scripts an operator runs (`npm run cli`, `npm run typeorm`), through scripts/run-built.js. */
describe('operator scripts', () => {
  let db: ProvisionedDatabase;

  beforeAll(async () => {
    requireBuild();
    db = await provisionDatabase(undefined, { empty: true });
  });
  afterAll(async () => {
    await killChildren();
    await db?.drop();
  });

  it('npm run cli does not rebuild a current build', async () => {
    const started = Date.now();
    const result = await spawnNode(RUN_BUILT, ['dist/src/cli.js', '--help'], {}).exit(20_000);
    const ms = Date.now() - started;
    process.stdout.write(`npm run cli -- --help on a current build: ${ms} ms (node process, no npm)\n`);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^usage: npm run cli/);
  });

  it('npm run typeorm -- migration:show lists every migration, applied ones marked [X]', async () => {
    const env = { ...CHILD_TEST_ENV, ...db.env };
    const before = await spawnNode(RUN_BUILT, SHOW_MIGRATIONS, env).exit(30_000);
    expect(before.code).toBe(0);
    const names = ALL_MIGRATION_NAMES;
    expect(names.length).toBeGreaterThan(3);
    for (const name of names) expect(before.stdout).toContain(`[ ] ${name}`);

    const run = await spawnNode(RUN_BUILT, ['dist/src/migrate.js'], env).exit(30_000);
    expect(run.code).toBe(0);
    const after = await spawnNode(RUN_BUILT, SHOW_MIGRATIONS, env).exit(30_000);
    expect(after.code).toBe(0);
    for (const name of names) expect(after.stdout).toMatch(new RegExp(`\\[X\\] \\d+ ${name}`));
  });
});
