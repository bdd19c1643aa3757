import { DataSource } from 'typeorm';
import { DiscardOnTimeoutClient } from '../src/platform/database/discard-on-timeout-client';
import { POSTGRES_ADMIN_URL, type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { PostgresProxy } from './support/postgres-proxy';
import { ProbeModule } from './support/probe.module';
import { startTestApp, type TestApp } from './support/test-app';

const REQUEST_LIMIT_MS = 5000;
const OUTAGE_ANSWER_MS = 2000;

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

/** Repeats `attempt` until `done` holds or `limitMs` has passed; returns the last answer either way. */
async function pollUntil<T>(attempt: () => Promise<T>, done: (value: T) => boolean, limitMs: number): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await attempt();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('database outage (PostgreSQL behind a proxy)', () => {
  let proxy: PostgresProxy;
  let database: ProvisionedDatabase;
  let t: TestApp | undefined;

  const companies = () => t!.http().get('/v1/probe/companies').timeout(REQUEST_LIMIT_MS);
  const health = () => t!.http().get('/health').timeout(REQUEST_LIMIT_MS);

  const expectUnavailable = async () => {
    const { value: res, ms } = await timed(() => companies());
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: ['error_service_unavailable'], message: expect.any(String) });
    expect(ms).toBeLessThan(OUTAGE_ANSWER_MS);
    // An outage is expected weather, not a bug: no line for the request itself (the outage is logged when it
    // starts and when it ends), never an 'unhandled error'.
    const logged = t!.logs.records.filter((r) => r.reqId === res.headers['x-request-id'] && r.level !== 'info');
    expect(logged).toEqual([]);
    expect(t!.logs.records.filter((r) => r.event === 'database_outage_started').length).toBeGreaterThanOrEqual(1);
  };

  const expectRecovered = async () => {
    const res = await pollUntil(companies, (r) => r.status === 200, 5000);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ count: expect.any(Number) });
    const ready = await pollUntil(health, (r) => r.status === 200, 5000);
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ok');
  };

  beforeAll(async () => {
    const real = await provisionDatabase('postgres');
    const target = new URL(real.url!);
    proxy = new PostgresProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
    const proxied = new URL(real.url!);
    proxied.port = String(proxy.port);
    database = { ...real, url: proxied.toString(), env: { ...real.env, DATABASE_URL: proxied.toString() } };
    // The product's default connect timeout, which the outage answers below are timed against.
    t = await startTestApp({ database, extraModules: [ProbeModule], env: { DATABASE_CONNECT_TIMEOUT_MS: '1500' } });
  });

  afterAll(async () => {
    try {
      await t?.close();
    } finally {
      await proxy?.close();
      await database?.drop();
    }
  });

  afterEach(() => proxy?.setMode('forward'));

  it('reads through the proxy while it forwards', async () => {
    await companies().expect(200, { count: 0 });
    const res = await health().expect(200);
    expect(res.body.status).toBe('ok');
  });

  it('answers 503 quickly, every time, when the server goes away, and recovers when it returns', async () => {
    await companies().expect(200);
    await proxy.setMode('refuse');

    for (let i = 0; i < 4; i++) await expectUnavailable();
    const { value: down, ms } = await timed(() => health());
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ status: 'error', error: { database: { status: 'down' } } });
    expect(ms).toBeLessThan(OUTAGE_ANSWER_MS);

    await proxy.setMode('forward');
    await expectRecovered();
  });

  it('answers 503 within the budget when the network swallows everything, and recovers', async () => {
    // Leave an idle connection in the pool, so the first request below stalls on it rather than on connect.
    await companies().expect(200);
    await proxy.setMode('blackhole');

    for (let i = 0; i < 3; i++) await expectUnavailable();
    const { value: down, ms } = await timed(() => health());
    expect(down.status).toBe(503);
    expect(down.body.status).toBe('error');
    expect(ms).toBeLessThan(OUTAGE_ANSWER_MS);

    await proxy.setMode('forward');
    await expectRecovered();
  });

  it('answers concurrent requests during a stall without any of them hanging', async () => {
    await Promise.all([companies().expect(200), companies().expect(200), companies().expect(200)]);
    await proxy.setMode('blackhole');
    const answers = await timed(() => Promise.all(Array.from({ length: 8 }, () => companies())));
    expect(answers.value.map((res) => res.status)).toEqual(Array(8).fill(503));
    expect(answers.ms).toBeLessThan(OUTAGE_ANSWER_MS);
    await proxy.setMode('forward');
    await expectRecovered();
  });

  it('never commits a transaction that failed in a stall once the network comes back', async () => {
    const dataSource = t!.app.get(DataSource);
    await dataSource.query('DELETE FROM company');
    const attempt = dataSource.transaction(async (manager) => {
      await manager.query(`INSERT INTO company (name) VALUES ('before the stall')`);
      await proxy.setMode('blackhole');
      await manager.query(`INSERT INTO company (name) VALUES ('during the stall')`);
    });
    await expect(attempt).rejects.toThrow(/Query read timeout/);
    await proxy.setMode('forward');

    // Later work on the same pool must not pick up, and commit, what the failed transaction left behind.
    await pollUntil(
      () =>
        dataSource
          .transaction((manager) => manager.query(`INSERT INTO company (name) VALUES ('later')`))
          .then(
            () => true,
            () => false,
          ),
      (ok) => ok,
      5000,
    );
    const names = (await dataSource.query('SELECT name FROM company ORDER BY id')) as Array<{ name: string }>;
    expect(names.map((row) => row.name)).toEqual(['later']);
  });

  it('logged nothing above a warning through all of the above', () => {
    const records = t!.logs.records;
    // One line when each outage starts and one when it ends, with the count; none per refused request.
    const started = records.filter((r) => r.event === 'database_outage_started');
    const ended = records.filter((r) => r.event === 'database_outage_ended');
    expect(started.length).toBeGreaterThanOrEqual(1);
    expect(ended.length).toBeGreaterThanOrEqual(started.length - 1);
    expect(ended.reduce((sum, r) => sum + Number(r.refused_requests), 0)).toBeGreaterThanOrEqual(ended.length);
    expect(records.filter((r) => r.msg === 'database unavailable')).toEqual([]);
    expect(records.filter((r) => r.msg === 'unhandled error' || r.level === 'error' || r.level === 'fatal')).toEqual(
      [],
    );
  });
});

describe('the read timeout after a stalled event loop', () => {
  it('takes an answer that arrived while the process did not run, though the deadline has passed', async () => {
    const client = new DiscardOnTimeoutClient({ connectionString: POSTGRES_ADMIN_URL, query_timeout: 200 });
    await client.connect();
    try {
      // Written to the socket within this call; the server answers in about a millisecond.
      const answer = client.query('SELECT 1 AS one');
      // The event loop held well past the deadline, as a long collection or a starved CPU would hold it.
      const until = performance.now() + 600;
      while (performance.now() < until) {
        // busy
      }
      await expect(answer).resolves.toMatchObject({ rows: [{ one: 1 }] });
      // The connection is still in use, not discarded as timed out.
      await expect(client.query('SELECT 2 AS two')).resolves.toMatchObject({ rows: [{ two: 2 }] });
    } finally {
      await client.end().catch(() => undefined);
    }
  });
});
