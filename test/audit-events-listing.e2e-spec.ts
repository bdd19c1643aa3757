import { DataSource } from 'typeorm';
import type { AuditEventInput } from '../src/audit/recorder/audit-event';
import { AuditRecorder } from '../src/audit/recorder/audit-recorder.service';
import { AuditRetention } from '../src/audit/recorder/audit-retention.service';
import { AppMetrics } from '../src/platform/common/metrics/app-metrics';
import { currentTestDatabase } from './support/databases';
import { expectError, expectInvalid } from './support/expectations';
import { type Account, authed, createAccount, createCompanies, login } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';

const DAY = 24 * 60 * 60 * 1000;

/** GET /v1/auditevents: who may read, what each company sees, filters, keyset paging; retention; rollbacks. */
describe(`GET /v1/auditevents (${currentTestDatabase()})`, () => {
  const clock = new ManualClock('2026-05-01T00:00:00.000Z');
  let t: TestApp;
  let alpha: { id: number };
  let beta: { id: number };
  let owner: Account;
  let ownerJwt: string;
  let reader: Account;
  let readerJwt: string;

  const list = (jwt: string, query = '') => authed(t, jwt).get(`/v1/auditevents${query}`);
  const record = (events: AuditEventInput | AuditEventInput[]) =>
    t.app.get(AuditRecorder).record(t.app.get(DataSource).manager, events);
  const synthetic = (companyId: number, n: number, extra: Partial<AuditEventInput> = {}): AuditEventInput => ({
    type: 'employee.created',
    companyId,
    actor: { kind: 'operator', id: null, email: null },
    subject: { kind: 'employee', id: 900_000 + n, email: `synthetic-${n}@example.test` },
    details: { n },
    ...extra,
  });
  /** Every page of a listing, following next_cursor; `between` runs after each page. */
  const allPages = async (query: string, between: () => Promise<void> = async () => undefined) => {
    const seen: Array<{ id: string; details: { n?: number } }> = [];
    let cursor: string | null = null;
    do {
      const res: { body: { data: typeof seen; next_cursor: string | null } } = await list(
        readerJwt,
        `?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      ).expect(200);
      seen.push(...res.body.data);
      cursor = res.body.next_cursor;
      await between();
    } while (cursor !== null);
    return seen;
  };

  beforeAll(async () => {
    t = await startTestApp({ clock });
    [alpha, beta] = await createCompanies(t, 'Listing Alpha', 'Listing Beta');
    owner = await createAccount(t, [alpha.id, beta.id], ['*']);
    ownerJwt = (await login(t, owner, alpha.id)).jwt;
    reader = await createAccount(t, [alpha.id], ['auditevents:read']);
    readerJwt = (await login(t, reader, alpha.id)).jwt;
  });
  afterAll(() => t?.close());

  it('needs auditevents:read (403 error_permission_denied) and a credential (401)', async () => {
    const clerk = await createAccount(t, [alpha.id], ['users:read', 'users:write']);
    expectError(await list((await login(t, clerk, alpha.id)).jwt), 403, 'error_permission_denied');
    expectError(await t.http().get('/v1/auditevents'), 401, 'error_jwt_is_required');
  });

  it("shows the current company's events only, newest first", async () => {
    await login(t, owner, beta.id);
    clock.advance(1000);
    await record(synthetic(beta.id, 1));
    const alphaEvents = (await list(readerJwt, '?limit=100').expect(200)).body.data;
    expect(alphaEvents.length).toBeGreaterThan(0);
    expect(alphaEvents.every((event: { company_id: number }) => event.company_id === alpha.id)).toBe(true);
    const betaEvents = (await list((await login(t, owner, beta.id)).jwt, '?limit=100').expect(200)).body.data;
    expect(betaEvents.map((event: { type: string }) => event.type)).toEqual([
      'login.succeeded',
      'employee.created',
      'login.succeeded',
    ]);
    const times = alphaEvents.map((event: { occurred_at: string }) => event.occurred_at);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('filters by type (repeatable), actor, subject and time', async () => {
    const at = clock.nowMs() + DAY;
    clock.set(at);
    await record([
      synthetic(alpha.id, 10, {
        type: 'apikey.created',
        actor: { kind: 'employee', id: owner.id, email: owner.email },
      }),
      synthetic(alpha.id, 11, { type: 'apikey.revoked' }),
      synthetic(alpha.id, 12, { type: 'session.revoked', subject: { kind: 'session', id: 'x', email: null } }),
    ]);
    const types = async (query: string) =>
      (await list(readerJwt, query).expect(200)).body.data.map((event: { type: string }) => event.type);
    const since = `since=${new Date(at).toISOString()}`;
    // One time, so newest first means the later id first.
    expect(await types(`?${since}&type=apikey.created&type=apikey.revoked`)).toEqual([
      'apikey.revoked',
      'apikey.created',
    ]);
    expect(await types(`?${since}&type=apikey.revoked`)).toEqual(['apikey.revoked']);
    expect(await types(`?${since}&actor_id=${owner.id}`)).toEqual(['apikey.created']);
    expect(await types(`?subject_id=900011`)).toEqual(['apikey.revoked']);
    expect(await types(`?until=${new Date(at).toISOString()}&type=apikey.revoked`)).toEqual([]);
    expect(await types(`?since=${new Date(at + 1).toISOString()}`)).toEqual([]);
  });

  it('refuses unknown parameters, a bad limit, type, time or cursor with 400 error_validation', async () => {
    expectInvalid(await list(readerJwt, '?color=red'), 'color');
    expectInvalid(await list(readerJwt, '?limit=0'), 'limit');
    expectInvalid(await list(readerJwt, '?limit=101'), 'limit');
    expectInvalid(await list(readerJwt, '?limit=ten'), 'limit');
    expectInvalid(await list(readerJwt, '?type=login.maybe'), 'type');
    expectInvalid(await list(readerJwt, '?since=yesterday'), 'since');
    expectInvalid(await list(readerJwt, '?cursor=not-a-cursor'), 'cursor');
    expectInvalid(await list(readerJwt, `?cursor=${Buffer.from('1:2:3').toString('base64url')}`), 'cursor');
    expect((await list(readerJwt, '?limit=100').expect(200)).body.data.length).toBeLessThanOrEqual(100);
  });

  it('pages by cursor without skipping or repeating while new events arrive', async () => {
    clock.advance(DAY);
    const start = clock.now().toISOString();
    // 23 events, several sharing one occurred_at, so the cursor must order by id within a time.
    for (let n = 100; n < 123; n++) {
      if (n % 4 === 0) clock.advance(1);
      await record(synthetic(alpha.id, n));
    }
    const expected = (await list(readerJwt, `?since=${start}&limit=100`).expect(200)).body.data.map(
      (event: { id: string }) => event.id,
    );
    expect(expected).toHaveLength(23);

    let extra = 1000;
    const paged = await allPages(`since=${start}&limit=5`, async () => {
      // New events (one at the newest time, one later) between pages never reach the later pages.
      await record(synthetic(alpha.id, extra++));
      clock.advance(1);
      await record(synthetic(alpha.id, extra++));
    });
    expect(paged.map((event) => event.id)).toEqual(expected);
    const last = await list(readerJwt, `?since=${start}&limit=${expected.length + (extra - 1000)}`).expect(200);
    expect(last.body.next_cursor).toBeNull();
  });

  it('records nothing for a refused change (403)', async () => {
    const manager = await createAccount(t, [alpha.id], ['users:write', 'users:read']);
    const managerJwt = (await login(t, manager, alpha.id)).jwt;
    const count = async () =>
      (await t.app.get(DataSource).query('SELECT count(*)::int AS n FROM audit_events'))[0].n as number;
    const before = await count();
    expectError(
      await authed(t, managerJwt).put(`/v1/users/${owner.id}/permissions`, { permissions: [] }),
      403,
      'error_permission_denied',
    );
    expectError(
      await authed(t, managerJwt).post('/v1/apikeys', { name: 'x', permissions: ['users:read'] }),
      403,
      'error_permission_denied',
    );
    expect(await count()).toBe(before);
  });

  it('a change whose transaction fails after the change leaves neither the change nor its event', async () => {
    const dataSource = t.app.get(DataSource);
    const target = await createAccount(t, [alpha.id], ['users:read']);
    // Fails the transaction at COMMIT, after the membership update and its event were both written.
    await dataSource.query(`
      CREATE FUNCTION audit_test_fail() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN RAISE EXCEPTION 'forced failure at commit'; END $$`);
    await dataSource.query(`
      CREATE CONSTRAINT TRIGGER audit_test_fail AFTER INSERT ON audit_events DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW WHEN (NEW.type = 'permissions.changed') EXECUTE FUNCTION audit_test_fail()`);
    const metric = async () => {
      const line = (await t.app.get(AppMetrics).scrape())
        .split('\n')
        .find((l) => l.startsWith('auth_events_total{type="permissions.changed"}'));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const counted = await metric();
    // Changing permissions is a step-up action and the clock has moved days since the suite's login.
    ownerJwt = (await login(t, owner, alpha.id)).jwt;
    try {
      const res = await authed(t, ownerJwt).put(`/v1/users/${target.id}/permissions`, { permissions: ['orders:read'] });
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 500, error: ['error_internal'] });
    } finally {
      await dataSource.query('DROP TRIGGER audit_test_fail ON audit_events');
      await dataSource.query('DROP FUNCTION audit_test_fail()');
    }
    const [{ permissions }] = await dataSource.query(
      'SELECT permissions FROM membership WHERE employee_id = $1 AND company_id = $2',
      [target.id, alpha.id],
    );
    expect(permissions).toEqual(['users:read']);
    const stored = await dataSource.query(`SELECT id FROM audit_events WHERE subject_id = $1`, [String(target.id)]);
    expect(stored).toEqual([]);
    expect(t.logs.lines.filter((line) => line.includes('"msg":"audit"') && line.includes(target.email))).toEqual([]);
    expect(await metric()).toBe(counted);
  });

  describe('retention', () => {
    it('deletes events older than AUDIT_RETENTION_DAYS in batches, and nothing younger', async () => {
      const retention = t.app.get(AuditRetention);
      const dataSource = t.app.get(DataSource);
      const [company] = await createCompanies(t, 'Retention Co');
      const old = new Date('2024-01-01T00:00:00Z').getTime();
      clock.set(old);
      await record(Array.from({ length: 1203 }, (_, n) => synthetic(company.id, n)));
      clock.set(old + 365 * DAY - 1);
      await record(synthetic(company.id, 5000));
      const remaining = async () =>
        (await dataSource.query('SELECT count(*)::int AS n FROM audit_events WHERE company_id = $1', [company.id]))[0]
          .n;

      // 365 days and a millisecond after the first batch: those 1203 are expired, the last one is not.
      clock.set(old + 365 * DAY + 1);
      expect(await retention.runOnce()).toBe(1203);
      expect(await remaining()).toBe(1);
      expect(await retention.runOnce()).toBe(0);
    });

    it('keeps everything when AUDIT_RETENTION_DAYS is 0', async () => {
      const forever = await startTestApp({
        clock: new ManualClock('2030-01-01T00:00:00Z'),
        env: { AUDIT_RETENTION_DAYS: '0' },
      });
      try {
        const [company] = await createCompanies(forever, 'Forever Co');
        const ds = forever.app.get(DataSource);
        (forever.clock as ManualClock).set('2000-01-01T00:00:00Z');
        await forever.app.get(AuditRecorder).record(ds.manager, synthetic(company.id, 1));
        (forever.clock as ManualClock).set('2030-01-01T00:00:00Z');
        expect(await forever.app.get(AuditRetention).runOnce()).toBe(0);
        expect((await ds.query('SELECT count(*)::int AS n FROM audit_events'))[0].n).toBe(1);
      } finally {
        await forever.close();
      }
    });

    if (currentTestDatabase() === 'postgres') {
      it('leaves the batch to the instance holding the advisory lock, without waiting for it', async () => {
        const dataSource = t.app.get(DataSource);
        const runner = dataSource.createQueryRunner();
        await runner.startTransaction();
        try {
          await runner.query('SELECT pg_advisory_xact_lock($1)', [0x61756469]);
          const started = Date.now();
          expect(await t.app.get(AuditRetention).deleteBatch(new Date())).toBeNull();
          expect(Date.now() - started).toBeLessThan(500);
        } finally {
          await runner.rollbackTransaction();
          await runner.release();
        }
      });
    }
  });
});
