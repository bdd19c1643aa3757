import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/platform/config/app-config';
import { dataSourceOptions } from '../src/data-source';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { CHILD_TEST_ENV, type Exited, killChildren, requireBuild, runCli } from './support/processes';

// Each run is a Node process opening the database: up to ~10 s apiece when the whole suite shares the machine.
jest.setTimeout(240_000);

const PASSWORD = 'Audit-Cli-Pass-4471';
const NEW_PASSWORD = 'Audit-Cli-Next-9902';

/** One statement against the test's database, through the same lock-aware driver as the CLI. */
async function query<T>(db: ProvisionedDatabase, sql: string, parameters: unknown[] = []): Promise<T> {
  const dataSource = await new DataSource(dataSourceOptions(loadConfig({ ...CHILD_TEST_ENV, ...db.env }))).initialize();
  try {
    return (await dataSource.query(sql, parameters)) as T;
  } finally {
    await dataSource.destroy();
  }
}

/** The CLI's changes are security events with the operator as actor; audit:export prints them as JSON lines. */
describe('operator CLI: security events and audit:export (compiled, as a child process)', () => {
  let db: ProvisionedDatabase;
  const outputs: string[] = [];

  beforeAll(async () => {
    requireBuild();
    db = await provisionDatabase();
  });
  afterAll(async () => {
    await killChildren();
    await db?.drop();
  });

  async function cli(args: string[], input = ''): Promise<Exited> {
    const result = await runCli(args, { ...CHILD_TEST_ENV, ...db.env }, 60_000, input);
    outputs.push(result.stdout, result.stderr);
    return result;
  }
  async function succeeds(args: string[], input = ''): Promise<string[]> {
    const result = await cli(args, input);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    return result.stdout.split('\n').filter((line) => line.trim() !== '');
  }
  const last = async (args: string[], input = '') => JSON.parse((await succeeds(args, input)).pop()!);
  const exported = async (...args: string[]) =>
    (await succeeds(['audit:export', ...args])).map((line) => JSON.parse(line) as Record<string, any>);

  let alpha: number;
  let beta: number;
  let employee: { id: number };
  let middle: string;

  it('operator: company, employee and membership changes (a repeated grant is none)', async () => {
    alpha = (await last(['company:create', '--name', 'Cli Alpha'])).id as number;
    beta = (await last(['company:create', '--name', 'Cli Beta'])).id as number;
    employee = await last(['employee:create', '--email', 'cli-audit@x.io', '--password', '-'], `${PASSWORD}\n`);
    const grant = (company: number, permissions: string) =>
      last(['membership:add', '--email', 'cli-audit@x.io', '--company', String(company), '--permissions', permissions]);
    await grant(alpha, 'users:read');
    await grant(alpha, 'users:read'); // no change, no event
    await grant(alpha, 'orders:read,users:read');
    await grant(beta, '*');
  });

  let sessionId: string;

  it('operator: a session revocation, a password change and a removal', async () => {
    sessionId = randomUUID();
    await query(
      db,
      `INSERT INTO login_session (id, employee_id, company_id, created_at, last_used_at, proven_at)
       VALUES ($1, $2, $3, now(), now(), now())`,
      [sessionId, employee.id, alpha],
    );
    await last(['session:revoke', '--id', sessionId]);
    await last(['employee:set-password', '--email', 'cli-audit@x.io'], `${NEW_PASSWORD}\n`);
    middle = new Date().toISOString();
    await last(['membership:remove', '--email', 'cli-audit@x.io', '--company', String(alpha)]);
  });

  it('exports them as JSON lines, oldest first, with the operator as actor', async () => {
    const events = await exported('--company', String(alpha));
    const operator = { kind: 'operator', id: null, email: null };
    const subject = { kind: 'employee', id: employee.id, email: 'cli-audit@x.io' };
    expect(events.map((event) => [event.type, event.details])).toEqual([
      ['membership.added', { permissions: ['users:read'] }],
      ['permissions.changed', { before: ['users:read'], after: ['orders:read', 'users:read'] }],
      ['session.revoked', {}],
      ['password.changed', { sessions_ended: 0 }],
      ['membership.removed', { permissions: ['orders:read', 'users:read'] }],
    ]);
    for (const event of events) {
      expect(event).toMatchObject({ company_id: alpha, actor: operator, ip: null, user_agent: null });
      expect(Object.keys(event).sort()).toEqual(
        [
          'actor',
          'company_id',
          'details',
          'id',
          'ip',
          'occurred_at',
          'session_id',
          'subject',
          'type',
          'user_agent',
        ].sort(),
      );
    }
    expect(events[0].subject).toEqual(subject);
    expect(events[2].subject).toEqual({ kind: 'session', id: sessionId, email: 'cli-audit@x.io' });

    // The password change is recorded in every company of the account; beta's own events are beta's alone.
    expect((await exported('--company', String(beta))).map((event) => event.type)).toEqual([
      'membership.added',
      'password.changed',
    ]);
    expect((await exported('--company', String(alpha), '--since', middle)).map((event) => event.type)).toEqual([
      'membership.removed',
    ]);
    expect(await exported('--company', String(alpha), '--until', '2000-01-01T00:00:00Z')).toEqual([]);
  });

  it('purges nothing younger than AUDIT_RETENTION_DAYS, and prints no secret', async () => {
    expect(await last(['audit:purge'])).toEqual({ deleted: 0 });
    const all = outputs.join('\n');
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toContain(NEW_PASSWORD);
    expect(all).not.toContain('$argon2');
  });

  it('refuses bad flags with one line and exit 2', async () => {
    for (const args of [
      ['audit:export', '--company', 'abc'],
      ['audit:export', '--company', '1', '--since', 'last tuesday'],
      ['audit:export'],
    ]) {
      const result = await cli(args);
      expect(result.code).toBe(2);
      expect(result.stderr.split('\n').filter((line) => line !== '')).toHaveLength(1);
      expect(result.stdout).toBe('');
    }
  });
});
