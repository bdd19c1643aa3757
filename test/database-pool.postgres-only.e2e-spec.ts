import { createCompanies } from './support/fixtures';
import { withAdminClient } from './support/databases';
import { startTestApp, type TestApp } from './support/test-app';

/** The backends the instance's pool holds open on its database. */
async function pooledBackends(t: TestApp): Promise<number[]> {
  const database = new URL(t.database.url!).pathname.slice(1);
  return withAdminClient(async (client) => {
    const { rows } = await client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'staff-auth-service' ORDER BY pid`,
      [database],
    );
    return rows.map((row) => row.pid);
  });
}

/**
 * The pool's first connections are opened at boot: a first burst of requests pays for no new connection, which on
 * a loaded machine took longer than the 1.5 s connect timeout (a recorded CI run failed a test's first two
 * parallel writes so).
 */
describe('PostgreSQL pool opened at boot', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('holds two connections before the first request, and two writes at once open no other', async () => {
    const atBoot = await pooledBackends(t);
    expect(atBoot.length).toBeGreaterThanOrEqual(2);
    await createCompanies(t, 'Pool A', 'Pool B');
    const after = await pooledBackends(t);
    expect(after.filter((pid) => !atBoot.includes(pid))).toEqual([]);
  });
});
