import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/platform/config/app-config';
import { dataSourceOptions } from '../src/data-source';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { CHILD_TEST_ENV, type Exited, killChildren, requireBuild, runCli } from './support/processes';

// Each run starts a Node process that opens the database: seconds apiece on a busy machine.
jest.setTimeout(120_000);

const lastLine = (stdout: string): string =>
  stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .pop() ?? '';

/**
 * ratelimit:set / ratelimit:list / ratelimit:unset (docs/contract.md), run as the operator runs them. On PostgreSQL
 * only: the commands' code is the same on both databases, and on the embedded one a CLI process opens the data
 * folder as in cli.e2e-spec.ts and hands ratelimit:set/unset to a running service as in
 * cli-while-service-runs.embedded-only.e2e-spec.ts; here it cost a minute or two of the suite for nothing more.
 */
describe('operator CLI: rate-limit overrides', () => {
  let db: ProvisionedDatabase;
  let acme: number;
  let globex: number;
  let globexKey: string;

  const cli = (...args: string[]): Promise<Exited> => runCli(args, { ...CHILD_TEST_ENV, ...db.env }, 60_000, '');

  async function succeeds(...args: string[]): Promise<unknown> {
    const result = await cli(...args);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    return JSON.parse(lastLine(result.stdout));
  }

  /** Exit 2, one line on standard error naming the problem. */
  async function refuses(args: string[], problem: RegExp): Promise<void> {
    const result = await cli(...args);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n').filter((line) => line !== '')).toEqual([expect.stringMatching(problem)]);
  }

  /**
   * One query on a connection of its own, closed at once: on the embedded database only one process may have it
   * open, and the CLI is that process while it runs.
   */
  async function query(sql: string, params: unknown[] = []): Promise<any[]> {
    const dataSource = await new DataSource(
      dataSourceOptions(loadConfig({ ...CHILD_TEST_ENV, ...db.env })),
    ).initialize();
    try {
      await dataSource.runMigrations();
      return (await dataSource.query(sql, params)) as any[];
    } finally {
      await dataSource.destroy();
    }
  }

  const rows = () => query('SELECT id FROM rate_limit_override ORDER BY id');
  const events = (type: string) =>
    query(
      'SELECT company_id, actor_kind, subject_kind, subject_id, details FROM audit_events WHERE type = $1 ORDER BY id',
      [type],
    );

  beforeAll(async () => {
    requireBuild();
    db = await provisionDatabase();
    [{ id: acme }] = await query(`INSERT INTO company (name) VALUES ('Acme') RETURNING id`);
    [{ id: globex }] = await query(`INSERT INTO company (name) VALUES ('Globex') RETURNING id`);
    const [{ id: employee }] = await query(
      `INSERT INTO employee (email, name, password_hash) VALUES ('k@x.io', 'K', 'x') RETURNING id`,
    );
    globexKey = randomUUID();
    await query(
      `INSERT INTO api_key (id, key_id, secret_hash, employee_id, company_id, name, permissions, created_at)
       VALUES ($1, 'gk1', repeat('0', 64), $2, $3, 'ci', '{}', now())`,
      [globexKey, employee, globex],
    );
  });

  afterAll(async () => {
    await killChildren();
    await db?.drop();
  });

  it('sets, lists and removes overrides, each change in the audit trail with actor operator', async () => {
    const company = await succeeds(
      'ratelimit:set',
      '--company',
      String(acme),
      '--method',
      'get',
      '--group',
      'products',
      '--limit',
      '5',
    );
    expect(company).toEqual({
      id: expect.any(Number),
      company_id: acme,
      api_key_id: null,
      method: 'GET',
      group: 'products',
      limit: 5,
      mode: 'enforce',
      expires_at: null,
      created_at: expect.any(String),
    });
    const key = (await succeeds(
      'ratelimit:set',
      '--company',
      String(globex),
      '--api-key',
      globexKey,
      '--method',
      '*',
      '--group',
      '*',
      '--limit',
      '10000',
      '--mode',
      'shadow',
      '--expires',
      '2099-01-01T00:00:00Z',
    )) as { id: number };
    expect(key).toMatchObject({ api_key_id: globexKey, mode: 'shadow', expires_at: '2099-01-01T00:00:00.000Z' });

    expect(await succeeds('ratelimit:list')).toEqual([company, key]);
    expect(await succeeds('ratelimit:list', '--company', String(globex))).toEqual([key]);

    // Setting the same scope again replaces it: one override per scope.
    const replaced = (await succeeds(
      'ratelimit:set',
      '--company',
      String(acme),
      '--method',
      'GET',
      '--group',
      'products',
      '--limit',
      '7',
    )) as { id: number };
    expect(await succeeds('ratelimit:list', '--company', String(acme))).toEqual([replaced]);

    expect(await succeeds('ratelimit:unset', '--id', String(key.id))).toMatchObject({ id: key.id, removed: true });
    expect(await rows()).toEqual([{ id: replaced.id }]);

    const set = await events('ratelimit.override_set');
    expect(set).toHaveLength(3);
    expect(set[1]).toMatchObject({
      company_id: globex,
      actor_kind: 'operator',
      subject_kind: 'api_key',
      subject_id: globexKey,
      details: { override_id: key.id, method: '*', group: '*', limit: 10000, mode: 'shadow' },
    });
    expect(set[2].details).toMatchObject({ limit: 7, replaced: (company as { id: number }).id });
    expect(await events('ratelimit.override_removed')).toEqual([
      expect.objectContaining({ company_id: globex, actor_kind: 'operator', subject_id: globexKey }),
    ]);
  });

  it('refuses bad input with one line and exit code 2, changing nothing', async () => {
    const before = await rows();
    const base = ['--method', 'GET', '--group', 'products'];
    await refuses(['ratelimit:set', '--company', '999999', ...base, '--limit', '5'], /no company has the id 999999/);
    await refuses(['ratelimit:set', '--company', String(acme), ...base, '--limit', '0'], /--limit/);
    await refuses(
      ['ratelimit:set', '--company', String(acme), ...base, '--limit', '10001'],
      /--limit must be 1 to 10000/,
    );
    await refuses(['ratelimit:set', '--company', String(acme), ...base, '--limit', '5', '--mode', 'soft'], /--mode/);
    await refuses(
      ['ratelimit:set', '--company', String(acme), ...base, '--limit', '5', '--expires', 'soon'],
      /--expires/,
    );
    await refuses(
      ['ratelimit:set', '--company', String(acme), ...base, '--limit', '5', '--expires', '2001-01-01T00:00:00Z'],
      /--expires must be in the future/,
    );
    await refuses(
      ['ratelimit:set', '--company', String(acme), '--api-key', globexKey, ...base, '--limit', '5'],
      /belongs to another company/,
    );
    await refuses(
      ['ratelimit:set', '--company', String(acme), '--api-key', randomUUID(), ...base, '--limit', '5'],
      /no API key has the id/,
    );
    await refuses(
      ['ratelimit:set', '--company', String(acme), '--api-key', 'abc', ...base, '--limit', '5'],
      /--api-key/,
    );
    await refuses(
      ['ratelimit:set', '--company', String(acme), '--method', 'G T', '--group', 'x', '--limit', '5'],
      /--method/,
    );
    await refuses(['ratelimit:unset', '--id', '999999'], /no rate-limit override has the id 999999/);
    await refuses(['ratelimit:unset', '--id', 'x'], /--id/);
    expect(await rows()).toEqual(before);
    expect(await events('ratelimit.override_set')).toHaveLength(3);
  });
});
