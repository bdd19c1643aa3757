import { DataSource } from 'typeorm';
import { loadConfig } from '../src/platform/config/app-config';
import { dataSourceOptions } from '../src/data-source';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { CHILD_TEST_ENV, type Exited, killChildren, requireBuild, runCli } from './support/processes';

/** Each run starts a Node process that opens the database: seconds apiece, more on a busy machine. */
const RUN_TIMEOUT_MS = 40_000;
// Each run has its own bound (RUN_TIMEOUT_MS); a test is bounded by its runs', as it makes up to six of them
// (in ci1, the first four of six runs on the embedded database beside the rest of the system suite took 60 s).
jest.setTimeout(6 * RUN_TIMEOUT_MS + 10_000);

/** Every password any run below passes; none may ever be printed back. */
const PASSWORD = 'Correct-Horse-7731';
const SECOND_PASSWORD = 'Battery-Staple-4410';
const SHORT_PASSWORD = 'sh0rt';
const SPACED_PASSWORD = ['Tr0ub4dor', 'and-3-more'];
const THIRD_PASSWORD = 'Piped-Secret-9120';
const FOURTH_PASSWORD = 'Reset-By-Operator-5581';
const ALL_PASSWORDS = [PASSWORD, SECOND_PASSWORD, SHORT_PASSWORD, ...SPACED_PASSWORD, THIRD_PASSWORD, FOURTH_PASSWORD];

/** The rows the CLI can change, read straight from the database (through the same lock-aware driver). */
async function snapshot(db: ProvisionedDatabase) {
  const options = dataSourceOptions(loadConfig({ ...CHILD_TEST_ENV, ...db.env }));
  const dataSource = await new DataSource(options).initialize();
  try {
    return {
      companies: await dataSource.query('SELECT id, name FROM company ORDER BY id'),
      employees: await dataSource.query('SELECT id, email, name, password_hash FROM employee ORDER BY id'),
      memberships: await dataSource.query(
        'SELECT employee_id, company_id, permissions FROM membership ORDER BY employee_id, company_id',
      ),
    };
  } finally {
    await dataSource.destroy();
  }
}

function grant(email: string, company: number | string, permissions: string): string[] {
  return ['membership:add', '--email', email, '--company', String(company), '--permissions', permissions];
}

function lastLine(stdout: string): string {
  const lines = stdout.split('\n').filter((line) => line.trim() !== '');
  return lines[lines.length - 1] ?? '';
}

describe('operator CLI (compiled, as a child process)', () => {
  let db: ProvisionedDatabase;
  const runs: Array<{ args: string[]; ms: number } & Exited> = [];

  beforeAll(async () => {
    requireBuild();
    db = await provisionDatabase();
  });

  afterAll(async () => {
    const times = runs.map((run) => run.ms).sort((a, b) => a - b);
    console.log(
      `CLI runs: ${times.length}, median ${times[times.length >> 1]} ms, slowest ${times.at(-1)} ms (${db?.url ? 'PostgreSQL' : 'embedded'})`,
    );
    await killChildren();
    await db?.drop();
  });

  async function cliWithInput(input: string, ...args: string[]): Promise<Exited> {
    const started = performance.now();
    const result = await runCli(args, { ...CHILD_TEST_ENV, ...db.env }, RUN_TIMEOUT_MS, input);
    runs.push({ args, ...result, ms: Math.round(performance.now() - started) });
    return result;
  }

  const cli = (...args: string[]) => cliWithInput('', ...args);

  /** Exit 0, nothing on standard error, and the result as the last line of standard output. */
  async function succeeds(...args: string[]): Promise<Record<string, unknown>> {
    return succeedsWithInput('', ...args);
  }

  async function succeedsWithInput(input: string, ...args: string[]): Promise<Record<string, unknown>> {
    const result = await cliWithInput(input, ...args);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    return JSON.parse(lastLine(result.stdout)) as Record<string, unknown>;
  }

  /** Non-zero exit with exactly one line on standard error, which names the problem. */
  async function refuses(args: string[], problem: RegExp, input = ''): Promise<void> {
    const result = await cliWithInput(input, ...args);
    expect(result.signal).toBeNull();
    expect(result.code).not.toBe(0);
    const lines = result.stderr.split('\n').filter((line) => line !== '');
    expect(lines).toEqual([expect.stringMatching(problem)]);
  }

  let companyId: number;

  describe('commands', () => {
    it('company:create prints {"id", "name"} as the last line and exits 0', async () => {
      const created = await succeeds('company:create', '--name', 'Acme Trading');
      expect(created).toEqual({ id: expect.any(Number), name: 'Acme Trading' });
      expect(Number.isInteger(created.id)).toBe(true);
      companyId = created.id as number;
    });

    it('employee:create prints {"id", "email"} with the e-mail lower-cased', async () => {
      const created = await succeedsWithInput(`${PASSWORD}\n`, 'employee:create', '--email', 'A@x.io', '--name', 'Ann');
      expect(created).toEqual({ id: expect.any(Number), email: 'a@x.io' });
      expect(Number.isInteger(created.id)).toBe(true);

      const unnamed = await succeedsWithInput(`${SECOND_PASSWORD}\n`, 'employee:create', '--email', 'Bob@X.io');
      expect(unnamed).toEqual({ id: expect.any(Number), email: 'bob@x.io' });
    });

    it('membership:add grants a comma-separated list, then `*`; repeating it replaces the permissions', async () => {
      const listed = await succeeds(...grant('A@X.IO', companyId, 'users:read,orders:write'));
      const employeeId = listed.employee_id;
      expect(listed).toMatchObject({ employee_id: expect.any(Number), company_id: companyId });
      expect(Object.keys(listed).sort()).toEqual(['company_id', 'employee_id', 'permissions']);
      expect([...(listed.permissions as string[])].sort()).toEqual(['orders:write', 'users:read']);

      const all = await succeeds(...grant('a@x.io', companyId, '*'));
      expect(all).toEqual({ employee_id: employeeId, company_id: companyId, permissions: ['*'] });

      const narrowed = await succeeds(...grant('a@x.io', companyId, 'products:read'));
      expect(narrowed).toEqual({ employee_id: employeeId, company_id: companyId, permissions: ['products:read'] });

      const { memberships } = await snapshot(db);
      expect(memberships).toEqual([{ employee_id: employeeId, company_id: companyId, permissions: ['products:read'] }]);
    });

    it('employee:create --password - (the old spelling) reads the password from standard input', async () => {
      const created = await succeedsWithInput(
        `${THIRD_PASSWORD}\n`,
        'employee:create',
        '--email',
        'dan@x.io',
        '--password',
        '-',
      );
      expect(created).toEqual({ id: expect.any(Number), email: 'dan@x.io' });
      const { employees } = await snapshot(db);
      expect(employees.find((row: { email: string }) => row.email === 'dan@x.io').password_hash).toMatch(
        /^\$argon2id\$/,
      );
    });

    it('employee:set-password reads the new password from standard input and changes only that hash', async () => {
      const before = await snapshot(db);
      const changed = await succeedsWithInput(`${FOURTH_PASSWORD}\r\n`, 'employee:set-password', '--email', 'DAN@x.io');
      expect(changed).toEqual({ id: expect.any(Number), email: 'dan@x.io' });
      const after = await snapshot(db);
      const hashOf = (rows: Array<{ email: string; password_hash: string }>, email: string) =>
        rows.find((row) => row.email === email)!.password_hash;
      expect(hashOf(after.employees, 'dan@x.io')).not.toBe(hashOf(before.employees, 'dan@x.io'));
      expect(hashOf(after.employees, 'a@x.io')).toBe(hashOf(before.employees, 'a@x.io'));
    });

    it('membership:remove takes the employee out of the company', async () => {
      await succeeds(...grant('dan@x.io', companyId, 'users:read'));
      const removed = await succeeds('membership:remove', '--email', 'dan@x.io', '--company', String(companyId));
      expect(removed).toEqual({ employee_id: expect.any(Number), company_id: companyId, removed: true });
      const { memberships } = await snapshot(db);
      expect(memberships.filter((row: { employee_id: number }) => row.employee_id === removed.employee_id)).toEqual([]);
    });

    it('membership:remove refuses a company’s last `*` holder (exit 2, one line), changing nothing', async () => {
      const solo = (await succeeds('company:create', '--name', 'Solo Ltd')).id as number;
      await succeeds(...grant('dan@x.io', solo, '*'));
      const result = await cli('membership:remove', '--email', 'dan@x.io', '--company', String(solo));
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/last one/)]);
      const { memberships } = await snapshot(db);
      expect(memberships).toContainEqual({ employee_id: expect.any(Number), company_id: solo, permissions: ['*'] });
      // With a second `*` holder the first may go.
      await succeeds(...grant('a@x.io', solo, '*'));
      await succeeds('membership:remove', '--email', 'dan@x.io', '--company', String(solo));
    });

    it('policy:reset prints the defaults; a company on them has nothing to reset', async () => {
      expect(await succeeds('policy:reset', '--company', String(companyId))).toEqual({
        company_id: companyId,
        reset: false,
        policy: { mfa_required: false, session_days: 14, idle_timeout_minutes: null, ip_allowlist: [] },
      });
    });

    it('company:list, employee:list [--company] and session:list print a JSON array as the last line', async () => {
      const companies = JSON.parse(lastLine((await cli('company:list')).stdout));
      expect(companies).toEqual(expect.arrayContaining([{ id: companyId, name: 'Acme Trading' }]));
      const everyone = JSON.parse(lastLine((await cli('employee:list')).stdout));
      expect(everyone).toEqual(
        expect.arrayContaining([{ id: expect.any(Number), email: 'a@x.io', name: 'Ann', mfa: false }]),
      );
      const members = JSON.parse(lastLine((await cli('employee:list', '--company', String(companyId))).stdout));
      expect(members).toEqual([
        { id: expect.any(Number), email: 'a@x.io', name: 'Ann', permissions: ['products:read'], mfa: false },
      ]);
      expect(JSON.parse(lastLine((await cli('session:list', '--email', 'A@x.io')).stdout))).toEqual([]);
      await refuses(['session:list', '--email', 'nobody@x.io'], /nobody@x\.io/);
      await refuses(['employee:list', '--company', 'x'], /--company/);
    });

    it.each([[[]], [['--help']], [['help']], [['membership:remove', '--help']]])(
      '%j prints every command on standard output and exits 0',
      async (args) => {
        const result = await cli(...args);
        expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
        expect(result.stdout).toMatch(/^usage: npm run cli -- <command>/);
        for (const name of [
          'company:create',
          'employee:create',
          'employee:set-password',
          'membership:add',
          'membership:remove',
          'session:revoke',
        ]) {
          expect(result.stdout).toContain(`  ${name} `);
        }
        expect(result.stdout).toContain('employee:create --email EMAIL [--name NAME] < PASSWORD_ON_STDIN');
        // The notes under the commands: one whole sentence per line, none wrapped in the middle.
        const notes = result.stdout.trim().split('\n\n').at(-1)!.split('\n');
        expect(notes.length).toBeGreaterThan(2);
        for (const line of notes) expect(line).toMatch(/^[A-Z:].*\.$/);
      },
    );
  });

  describe('bad input: non-zero exit, one line on standard error, nothing changed', () => {
    let before: Awaited<ReturnType<typeof snapshot>>;

    beforeAll(async () => {
      before = await snapshot(db);
    });

    it('an unknown command', () => refuses(['company:delete', '--name', 'Acme'], /unknown command "company:delete"/));

    it('a password on the command line of employee:set-password or employee:create (standard input only)', async () => {
      const refused = /--password on the command line is refused .*standard input/;
      await refuses(['employee:set-password', '--email', 'a@x.io', '--password', PASSWORD], refused);
      await refuses(['employee:create', '--email', 'carol@x.io', '--password', PASSWORD], refused, `${PASSWORD}\n`);
    });

    it('no password on standard input', async () => {
      await refuses(['employee:set-password', '--email', 'a@x.io'], /no --password on standard input/);
      await refuses(['employee:create', '--email', 'erin@x.io', '--password', '-'], /no --password/, '\n');
    });

    it('a new password that is too short', () =>
      refuses(['employee:set-password', '--email', 'a@x.io'], /password/, `${SHORT_PASSWORD}\n`));

    it('a new password for an employee that does not exist', () =>
      refuses(['employee:set-password', '--email', 'nobody@x.io'], /nobody@x\.io/, `${THIRD_PASSWORD}\n`));

    it('membership:remove of an employee who is not a member, or does not exist', async () => {
      await refuses(['membership:remove', '--email', 'bob@x.io', '--company', String(companyId)], /not a member/);
      await refuses(
        ['membership:remove', '--email', 'a@x.io', '--company', '987654'],
        /not a member of company 987654/,
      );
      await refuses(['membership:remove', '--email', 'nobody@x.io', '--company', String(companyId)], /nobody@x\.io/);
      await refuses(['membership:remove', '--email', 'a@x.io', '--company', 'x'], /--company/);
      await refuses(['membership:remove', '--email', 'a@x.io'], /missing --company/);
    });

    it('a missing required flag', async () => {
      await refuses(['company:create'], /missing --name/);
      await refuses(['membership:add', '--email', 'a@x.io', '--company', '1'], /missing --permissions/);
    });

    it('an unknown flag', () => refuses(['company:create', '--name', 'Gamma', '--colour', 'red'], /--colour/));

    it.each(['abc', '0'])('--company %s', (value) => refuses(grant('a@x.io', value, '*'), /--company/));

    it('an unknown permission name', () =>
      refuses(grant('a@x.io', companyId, 'users:read,users:delete'), /unknown permission "users:delete"/));

    it('an e-mail already taken, compared without case', () =>
      refuses(['employee:create', '--email', 'a@X.io'], /already exists/, `${PASSWORD}\n`));

    it('a password that is too short', () =>
      refuses(['employee:create', '--email', 'carol@x.io'], /password/, `${SHORT_PASSWORD}\n`));

    it('a common password, or the account’s own e-mail, as a password (the shared password rule)', async () => {
      await refuses(['employee:create', '--email', 'carol@x.io'], /too common/, 'Password1\n');
      await refuses(['employee:create', '--email', 'carol@x.io'], /e-mail/, 'Carol@X.io\n');
    });

    it('an invalid e-mail', () => refuses(['employee:create', '--email', 'carol-at-x.io'], /e-?mail/, `${PASSWORD}\n`));

    it('a stray argument (an unquoted password with a space) without echoing it', () =>
      refuses(['employee:create', '--email', 'carol@x.io', '--password', ...SPACED_PASSWORD], /unexpected argument/));

    it('a company that does not exist', () => refuses(grant('a@x.io', 987654, '*'), /company 987654/));

    it('an employee that does not exist', () => refuses(grant('nobody@x.io', companyId, '*'), /nobody@x\.io/));

    it('policy:reset of a company that does not exist, or without a company id', async () => {
      await refuses(['policy:reset', '--company', '987654'], /company 987654/);
      await refuses(['policy:reset', '--company', 'acme'], /--company/);
      await refuses(['policy:reset'], /--company/);
    });

    it('left every table as it was', async () => {
      expect(await snapshot(db)).toEqual(before);
    });
  });

  it('never printed a password, on either stream, in any run', () => {
    expect(runs.length).toBeGreaterThan(15);
    for (const run of runs) {
      for (const password of ALL_PASSWORDS) {
        const printed = { stdout: run.stdout.includes(password), stderr: run.stderr.includes(password) };
        expect({ args: run.args, ...printed }).toEqual({ args: run.args, stdout: false, stderr: false });
      }
    }
  });
});
