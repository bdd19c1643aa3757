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
 * quota:set / quota:list / quota:unset (docs/contract.md, "Beyond the bucket": quotas), run as the operator runs
 * them. On PostgreSQL only, as the overrides' commands (rate-limit-overrides-cli.postgres-only.e2e-spec.ts): the
 * commands' code is the same on both databases.
 */
describe('operator CLI: quotas', () => {
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

  const rows = () => query('SELECT id, company_id, api_key_id, per, request_limit FROM rate_limit_quota ORDER BY id');
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

  it('sets, lists, replaces and removes quotas, each change in the audit trail with actor operator', async () => {
    const company = (await succeeds('quota:set', '--company', String(acme), '--per', 'day', '--limit', '100000')) as {
      id: number;
    };
    expect(company).toEqual({
      id: expect.any(Number),
      company_id: acme,
      api_key_id: null,
      per: 'day',
      limit: 100000,
      created_at: expect.any(String),
    });
    const key = (await succeeds(
      'quota:set',
      '--company',
      String(globex),
      '--api-key',
      globexKey.toUpperCase(),
      '--per',
      'HOUR',
      '--limit',
      '1000000000',
    )) as { id: number };
    expect(key).toMatchObject({ company_id: globex, api_key_id: globexKey, per: 'hour', limit: 1_000_000_000 });

    // The same scope and period again replaces the quota: one per scope and period.
    const replaced = (await succeeds('quota:set', '--company', String(acme), '--per', 'day', '--limit', '5')) as {
      id: number;
    };
    expect(await succeeds('quota:list')).toEqual([key, replaced]);
    expect(await succeeds('quota:list', '--company', String(globex))).toEqual([key]);

    expect(await succeeds('quota:unset', '--id', String(key.id))).toMatchObject({ id: key.id, removed: true });
    expect(await rows()).toEqual([
      { id: replaced.id, company_id: acme, api_key_id: null, per: 'day', request_limit: 5 },
    ]);

    const set = await events('ratelimit.quota_set');
    expect(set).toHaveLength(3);
    expect(set[1]).toMatchObject({
      company_id: globex,
      actor_kind: 'operator',
      subject_kind: 'api_key',
      subject_id: globexKey,
      details: { quota_id: key.id, api_key_id: globexKey, per: 'hour', limit: 1_000_000_000, replaced: null },
    });
    expect(set[2].details).toMatchObject({ per: 'day', limit: 5, replaced: company.id });
    expect(await events('ratelimit.quota_removed')).toEqual([
      expect.objectContaining({ company_id: globex, actor_kind: 'operator', subject_id: globexKey }),
    ]);
  });

  // Each flag's own checks (before the database is opened) are in src/operations/cli/quota-commands.spec.ts.
  it('refuses bad input with one line and exit code 2, changing nothing', async () => {
    const before = await rows();
    const acmeFlags = ['--company', String(acme)];
    await refuses(['quota:set', '--company', '999999', '--per', 'day', '--limit', '5'], /no company has the id 999999/);
    await refuses(['quota:set', ...acmeFlags, '--per', 'week', '--limit', '5'], /--per must be hour or day/);
    await refuses(
      ['quota:set', ...acmeFlags, '--api-key', globexKey, '--per', 'day', '--limit', '5'],
      /belongs to another company/,
    );
    await refuses(
      ['quota:set', ...acmeFlags, '--api-key', randomUUID(), '--per', 'day', '--limit', '5'],
      /no API key has the id/,
    );
    await refuses(['quota:unset', '--id', '999999'], /no quota has the id 999999/);
    expect(await rows()).toEqual(before);
    expect(await events('ratelimit.quota_set')).toHaveLength(3);
  });
});
