import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { AuditEventJson } from '../src/audit/recorder/audit-event-json';
import { AuditEventsService } from '../src/audit/recorder/audit-events.service';
import { AppMetrics } from '../src/platform/common/metrics/app-metrics';
import { currentTestDatabase } from './support/databases';
import { type Account, authed, createAccount, createCompanies } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';

const UA = 'audit-test-agent/1.0';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function metric(t: TestApp, key: string): Promise<number> {
  const line = (await t.app.get(AppMetrics).scrape()).split('\n').find((candidate) => candidate.startsWith(`${key} `));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** Every action that changes who can do what, through the HTTP API: each records its event, as docs/contract.md says. */
describe(`security events of each action (${currentTestDatabase()})`, () => {
  const clock = new ManualClock('2026-06-01T08:00:00.000Z');
  let t: TestApp;
  let alpha: { id: number };
  let beta: { id: number };
  let owner: Account;
  let ownerJwt: string;
  /** Every secret any request below sent or received, for the final scan of the table. */
  const secrets: string[] = [];

  const eventsOf = async (companyId: number): Promise<AuditEventJson[]> => {
    const all: AuditEventJson[] = [];
    for await (const event of t.app.get(AuditEventsService).export(companyId, {})) all.push(event);
    return all;
  };
  /** The events recorded in `companyId` while `action` ran. */
  const during = async (companyId: number, action: () => Promise<unknown>): Promise<AuditEventJson[]> => {
    const before = new Set((await eventsOf(companyId)).map((event) => event.id));
    clock.advance(1000);
    await action();
    return (await eventsOf(companyId)).filter((event) => !before.has(event.id));
  };
  const post = (path: string, body: object) => t.http().post(path).set('user-agent', UA).send(body);
  const loginAs = async (account: Account, companyId: number) => {
    const res = await post('/v1/users/authenticatefinish', {
      email: account.email,
      password: account.password,
      company_id: companyId,
    }).expect(200);
    secrets.push(res.body.jwt, res.body.refresh_token);
    return res.body as { jwt: string; refresh_token: string; session_id: string };
  };
  const employee = (account: Account) => ({ kind: 'employee', id: account.id, email: account.email });
  const at = () => clock.now().toISOString();

  beforeAll(async () => {
    t = await startTestApp({ clock });
    [alpha, beta] = await createCompanies(t, 'Audit Alpha', 'Audit Beta');
    owner = await createAccount(t, [alpha.id, beta.id], ['*']);
    secrets.push(owner.password);
    ownerJwt = (await loginAs(owner, alpha.id)).jwt;
  });
  afterAll(() => t?.close());

  it('login.succeeded: the employee, the new session, the client', async () => {
    let session!: { session_id: string };
    const events = await during(alpha.id, async () => (session = await loginAs(owner, alpha.id)));
    expect(events).toEqual([
      {
        id: expect.stringMatching(/^\d+$/),
        occurred_at: at(),
        type: 'login.succeeded',
        company_id: alpha.id,
        actor: employee(owner),
        subject: null,
        session_id: session.session_id,
        ip: expect.any(String),
        user_agent: UA,
        details: { method: 'password' },
      },
    ]);
    expect(events[0].occurred_at).toMatch(ISO_UTC);
  });

  it('login.failed: invalid_credentials and locked in every company of the account; not_member', async () => {
    const wrong = { email: owner.email, password: 'not-the-password-1' };
    secrets.push(wrong.password);
    const inBeta = await during(beta.id, async () => {
      const inAlpha = await during(alpha.id, () => post('/v1/users/authenticateinit', wrong).expect(401));
      expect(inAlpha).toEqual([
        expect.objectContaining({
          type: 'login.failed',
          actor: { kind: 'anonymous', id: null, email: null },
          subject: employee(owner),
          session_id: null,
          user_agent: UA,
          details: { reason: 'invalid_credentials' },
        }),
      ]);
    });
    expect(inBeta).toEqual([expect.objectContaining({ type: 'login.failed', company_id: beta.id })]);

    const stranger = await createAccount(t, [beta.id], ['*']);
    secrets.push(stranger.password);
    const notMember = await during(beta.id, () =>
      post('/v1/users/authenticatefinish', {
        email: stranger.email,
        password: stranger.password,
        company_id: alpha.id,
      }).expect(403),
    );
    expect(notMember).toEqual([
      expect.objectContaining({
        type: 'login.failed',
        subject: employee(stranger),
        details: { reason: 'not_member', company_id: alpha.id },
      }),
    ]);

    const locked = await createAccount(t, [alpha.id], ['*']);
    secrets.push(locked.password);
    for (let i = 0; i < 10; i++) {
      await post('/v1/users/authenticateinit', { email: locked.email, password: `wrong-${i}-password` }).expect(401);
    }
    const lockedEvents = await during(alpha.id, () =>
      post('/v1/users/authenticateinit', { email: locked.email, password: locked.password }).expect(429),
    );
    expect(lockedEvents).toEqual([
      expect.objectContaining({ type: 'login.failed', subject: employee(locked), details: { reason: 'locked' } }),
    ]);
  });

  it('an e-mail with no account is only counted, never stored', async () => {
    const before = await metric(t, 'auth_events_total{type="login.failed"}');
    const rows = async () => (await t.app.get(DataSource).query('SELECT count(*)::int AS n FROM audit_events'))[0].n;
    const stored = await rows();
    await post('/v1/users/authenticateinit', { email: 'nobody-here@example.test', password: 'whatever-123' }).expect(
      401,
    );
    expect(await rows()).toBe(stored);
    expect(await metric(t, 'auth_events_total{type="login.failed"}')).toBe(before + 1);
    expect(JSON.stringify(await eventsOf(alpha.id))).not.toContain('nobody-here');
  });

  it('token.refreshed and session.refresh_reuse', async () => {
    const session = await loginAs(owner, alpha.id);
    let renewed!: { refresh_token: string };
    const refreshed = await during(alpha.id, async () => {
      renewed = (await post('/v1/users/refreshtoken', { refresh_token: session.refresh_token }).expect(200)).body;
      secrets.push((renewed as { jwt?: string }).jwt!, renewed.refresh_token);
    });
    expect(refreshed).toEqual([
      expect.objectContaining({
        type: 'token.refreshed',
        actor: employee(owner),
        session_id: session.session_id,
        user_agent: UA,
      }),
    ]);

    clock.advance(10_001);
    const reused = await during(alpha.id, () =>
      post('/v1/users/refreshtoken', { refresh_token: session.refresh_token }).expect(401),
    );
    expect(reused).toEqual([
      expect.objectContaining({
        type: 'session.refresh_reuse',
        actor: { kind: 'anonymous', id: null, email: null },
        subject: { kind: 'session', id: session.session_id, email: owner.email },
        session_id: session.session_id,
      }),
    ]);
    // The session is over: presenting it again records nothing more.
    expect(
      await during(alpha.id, () => post('/v1/users/refreshtoken', { refresh_token: session.refresh_token })),
    ).toEqual([]);
  });

  it('session.logged_out and session.revoked (own session, recorded in its company)', async () => {
    const first = await loginAs(owner, alpha.id);
    const out = await during(alpha.id, () =>
      authed(t, first.jwt).post('/v1/users/logout').set('user-agent', UA).expect(204),
    );
    expect(out).toEqual([
      expect.objectContaining({ type: 'session.logged_out', actor: employee(owner), session_id: first.session_id }),
    ]);

    const inBeta = await loginAs(owner, beta.id);
    const revoked = await during(beta.id, () =>
      authed(t, ownerJwt).delete(`/v1/users/sessions/${inBeta.session_id}`).expect(204),
    );
    expect(revoked).toEqual([
      expect.objectContaining({
        type: 'session.revoked',
        company_id: beta.id,
        actor: employee(owner),
        subject: { kind: 'session', id: inBeta.session_id, email: owner.email },
      }),
    ]);
    // Ending it again changes nothing and records nothing.
    expect(
      await during(beta.id, () => authed(t, ownerJwt).delete(`/v1/users/sessions/${inBeta.session_id}`).expect(204)),
    ).toEqual([]);
  });

  it('company.switched is recorded in both companies', async () => {
    const session = await loginAs(owner, alpha.id);
    let inAlpha: AuditEventJson[] = [];
    const inBeta = await during(beta.id, async () => {
      inAlpha = await during(alpha.id, async () => {
        const res = await authed(t, session.jwt).post('/v1/users/changeworkingcompany', { company_id: beta.id });
        expect(res.status).toBe(200);
        secrets.push(res.body.jwt, res.body.refresh_token);
      });
    });
    for (const [events, companyId] of [
      [inAlpha, alpha.id],
      [inBeta, beta.id],
    ] as const) {
      expect(events).toEqual([
        expect.objectContaining({
          type: 'company.switched',
          company_id: companyId,
          actor: employee(owner),
          session_id: session.session_id,
          details: { from_company_id: alpha.id, to_company_id: beta.id },
        }),
      ]);
    }
  });

  it('apikey.created and apikey.revoked name the key, never its secret', async () => {
    let key!: { id: string; api_key: string };
    const created = await during(alpha.id, async () => {
      key = (
        await authed(t, ownerJwt)
          .post('/v1/apikeys', { name: 'sync', permissions: ['users:read', 'users:write'] })
          .expect(201)
      ).body;
    });
    const [prefix, secret] = key.api_key.split(':');
    secrets.push(key.api_key, secret, createHash('sha256').update(secret).digest('hex'));
    expect(created).toEqual([
      expect.objectContaining({
        type: 'apikey.created',
        actor: employee(owner),
        subject: { kind: 'api_key', id: key.id, email: owner.email },
        details: { name: 'sync', prefix, permissions: ['users:read', 'users:write'] },
      }),
    ]);

    // Acting with the key: the actor is the key, with its owner's e-mail.
    const byKey = await during(alpha.id, () =>
      authed(t, key.api_key).post('/v1/users', {
        email: `made-by-key-${process.pid}@example.test`,
        password: 'key-made-password-1',
        name: 'Made By Key',
        permissions: ['users:read'],
      }),
    );
    secrets.push('key-made-password-1');
    const keyActor = { kind: 'api_key', id: key.id, email: owner.email };
    expect(byKey.map((event) => [event.type, event.actor, event.session_id])).toEqual([
      ['employee.created', keyActor, null],
      ['membership.added', keyActor, null],
    ]);

    const revoked = await during(alpha.id, () => authed(t, ownerJwt).delete(`/v1/apikeys/${key.id}`).expect(204));
    expect(revoked).toEqual([
      expect.objectContaining({
        type: 'apikey.revoked',
        subject: { kind: 'api_key', id: key.id, email: owner.email },
        details: { name: 'sync', prefix },
      }),
    ]);
  });

  it('employee.created and membership.added (one INSERT), then permissions.changed with before and after', async () => {
    const email = `created-${process.pid}@example.test`;
    secrets.push('created-password-1');
    let id!: number;
    const created = await during(alpha.id, async () => {
      const res = await authed(t, ownerJwt)
        .post('/v1/users', {
          email,
          password: 'created-password-1',
          name: 'Created',
          permissions: ['orders:read', 'users:read'],
        })
        .expect(201);
      id = res.body.id;
    });
    const subject = { kind: 'employee', id, email };
    expect(created).toEqual([
      expect.objectContaining({ type: 'employee.created', actor: employee(owner), subject, details: {} }),
      expect.objectContaining({
        type: 'membership.added',
        subject,
        details: { permissions: ['orders:read', 'users:read'] },
      }),
    ]);

    const changed = await during(alpha.id, () =>
      authed(t, ownerJwt)
        .put(`/v1/users/${id}/permissions`, { permissions: ['products:read'] })
        .expect(200),
    );
    expect(changed).toEqual([
      expect.objectContaining({
        type: 'permissions.changed',
        subject,
        details: { before: ['orders:read', 'users:read'], after: ['products:read'] },
      }),
    ]);
    // The same set again is no change.
    expect(
      await during(alpha.id, () =>
        authed(t, ownerJwt)
          .put(`/v1/users/${id}/permissions`, { permissions: ['products:read'] })
          .expect(200),
      ),
    ).toEqual([]);
  });

  it('stores no password, token, refresh token, API key secret or hash anywhere in the table', async () => {
    const dataSource = t.app.get(DataSource);
    const hashes: Array<{ password_hash: string }> = await dataSource.query('SELECT password_hash FROM employee');
    const digests: Array<{ token_hash: string; refresh_hash: string }> = await dataSource.query(
      'SELECT token_hash, refresh_hash FROM issued_token',
    );
    const forbidden = [
      ...secrets,
      ...hashes.map((row) => row.password_hash),
      ...digests.flatMap((row) => [row.token_hash, row.refresh_hash]),
    ].filter((secret) => typeof secret === 'string' && secret.length >= 8);
    expect(forbidden.length).toBeGreaterThan(20);
    const table: Array<{ row: string }> = await dataSource.query('SELECT to_jsonb(e)::text AS row FROM audit_events e');
    expect(table.length).toBeGreaterThan(15);
    const text = table.map((entry) => entry.row).join('\n');
    for (const secret of forbidden) expect({ secret, found: text.includes(secret) }).toEqual({ secret, found: false });
    // The log lines of the events too.
    const logged = t.logs.lines.filter((line) => line.includes('"msg":"audit"')).join('\n');
    for (const secret of forbidden)
      expect({ secret, logged: logged.includes(secret) }).toEqual({ secret, logged: false });
  });
});
