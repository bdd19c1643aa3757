import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import type { AuditEventInput } from '../src/audit/recorder/audit-event';
import { AuditRecorder } from '../src/audit/recorder/audit-recorder.service';
import { AppMetrics } from '../src/platform/common/metrics/app-metrics';
import { StreamDeliverer } from '../src/audit/event-streams/stream-deliverer';
import { currentTestDatabase } from './support/databases';
import { authed, createAccount, createCompanies, login } from './support/fixtures';
import type { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

class IntendedRollback extends Error {}

describe(`security-event streams (${currentTestDatabase()})`, () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let companyId: number;
  let otherCompanyId: number;
  let jwt: string;
  const api = () => authed(t, jwt);

  const event = (marker: string): AuditEventInput => ({
    type: 'employee.created',
    companyId,
    actor: { kind: 'operator', id: null, email: null },
    subject: { kind: 'employee', id: 7, email: 'seven@example.test' },
    details: { marker },
  });
  const record = (...markers: string[]) =>
    t.app.get(DataSource).transaction((manager) => t.app.get(AuditRecorder).record(manager, markers.map(event)));
  const markersOf = (received: WebhookReceiver['received']) =>
    received.map((r) => (JSON.parse(r.body) as { data: { details: { marker?: string } } }).data.details.marker);

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await startTestApp({
      env: { STREAMS_ALLOWLIST: '127.0.0.1', STREAMS_POLL_MS: '50', STREAMS_RETRY_BASE_MS: '1000' },
    });
    [{ id: companyId }, { id: otherCompanyId }] = await createCompanies(t, 'Streams Co', 'Other Co');
    const account = await createAccount(t, [companyId, otherCompanyId], ['auditevents:read']);
    jwt = (await login(t, account, companyId)).jwt;
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it.each([
    ['a private address', 'http://10.1.2.3/hook'],
    ['loopback outside the allow-list', 'http://[::1]:8080/hook'],
    ['the cloud metadata address', 'http://169.254.169.254/latest'],
    ['another scheme', 'ftp://example.com/hook'],
    ['credentials in the URL', 'https://user:pw@example.com/hook'],
    ['no URL at all', 'not a url'],
  ])('refuses %s: 400 error_validation naming url', async (_label, url) => {
    const res = await api().post('/v1/auditevents/streams', { url }).expect(400);
    expect(res.body.error).toEqual(['error_validation']);
    expect(res.body.details).toEqual([expect.objectContaining({ field: 'url' })]);
  });

  it('delivers committed events in order, signed; a rolled-back change delivers nothing', async () => {
    const created = await api().post('/v1/auditevents/streams', { url: receiver.url }).expect(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      url: receiver.url,
      secret: expect.stringMatching(/^whsec_/),
    });
    const listed = await api().get('/v1/auditevents/streams').expect(200);
    expect(listed.body.data).toEqual([expect.objectContaining({ id: created.body.id, state: 'active' })]);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);

    await record('one', 'two');
    await expect(
      t.app.get(DataSource).transaction(async (manager) => {
        await t.app.get(AuditRecorder).record(manager, event('rolled back'));
        throw new IntendedRollback();
      }),
    ).rejects.toBeInstanceOf(IntendedRollback);
    await record('three');
    // Another company's event goes to no stream of this one.
    await t.app
      .get(DataSource)
      .transaction((manager) =>
        t.app.get(AuditRecorder).record(manager, { ...event('other'), companyId: otherCompanyId }),
      );
    await receiver.waitFor(() => receiver.received.length >= 3, 10_000, 'three deliveries');
    await new Promise((done) => setTimeout(done, 300));

    expect(markersOf(receiver.received)).toEqual(['one', 'two', 'three']);
    const webhook = new Webhook(created.body.secret);
    for (const request of receiver.received) {
      const verified = webhook.verify(request.body, request.headers as Record<string, string>) as {
        type: string;
        data: { company_id: number; id: string };
      };
      expect(verified.type).toBe('employee.created');
      expect(verified.data.company_id).toBe(companyId);
      expect(request.headers['webhook-id']).toMatch(new RegExp(`^evt_${verified.data.id}_`));
    }
    const deliveries = await api().get(`/v1/auditevents/streams/${created.body.id}/deliveries`).expect(200);
    expect(deliveries.body.total).toBe(3);
    expect(deliveries.body.data[0]).toEqual(
      expect.objectContaining({ outcome: 'delivered', status: 200, error: null, webhook_id: expect.any(String) }),
    );

    const metrics = await t.app.get(AppMetrics).scrape();
    expect(metrics).toContain('event_stream_deliveries_total{outcome="delivered"} 3');
    expect(metrics).toMatch(/^event_stream_lag_seconds_count 3$/m);

    await api().delete(`/v1/auditevents/streams/${created.body.id}`).expect(204);
    await api().get(`/v1/auditevents/streams/${created.body.id}/deliveries`).expect(404);
    expect((await api().get('/v1/auditevents/streams').expect(200)).body.data).toEqual([]);
  });

  it('retries a failing receiver with growing delays (injected clock), then pauses it after 24 hours', async () => {
    const clock = t.clock as ManualClock;
    const deliverer = t.app.get(StreamDeliverer);
    receiver.received.length = 0;
    receiver.answer = () => 503;
    const created = await api().post('/v1/auditevents/streams', { url: receiver.url }).expect(201);
    const stream = () =>
      api()
        .get('/v1/auditevents/streams')
        .then((res) => (res.body.data as Array<{ id: string; state: string; last_error: string | null }>)[0]);
    await record('failing');
    await receiver.waitFor(() => receiver.received.length === 1, 10_000, 'the first attempt');

    // The clock stands still: no retry before the backoff has passed, however often the deliverer looks.
    await new Promise((done) => setTimeout(done, 300));
    expect(receiver.received).toHaveLength(1);
    expect(await stream()).toEqual(
      expect.objectContaining({ state: 'active', last_error: 'HTTP 503: receiver says no' }),
    );
    clock.advance(1000);
    deliverer.wake();
    await receiver.waitFor(() => receiver.received.length === 2, 10_000, 'the first retry');
    clock.advance(1000);
    deliverer.wake();
    await new Promise((done) => setTimeout(done, 300));
    expect(receiver.received).toHaveLength(2); // the second retry waits 2 s
    clock.advance(1000);
    deliverer.wake();
    await receiver.waitFor(() => receiver.received.length === 3, 10_000, 'the second retry');
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);

    clock.advance(24 * 60 * 60 * 1000);
    deliverer.wake();
    await receiver.waitFor(() => receiver.received.length === 4, 10_000, 'the last attempt');
    await new Promise((done) => setTimeout(done, 200));
    expect(await stream()).toEqual(expect.objectContaining({ state: 'paused' }));
    const deliveries = await api().get(`/v1/auditevents/streams/${created.body.id}/deliveries`).expect(200);
    expect(deliveries.body.data).toHaveLength(4);
    expect(deliveries.body.data[0]).toEqual(expect.objectContaining({ outcome: 'failed', status: 503 }));

    // Paused: nothing more is sent, even once the receiver is back.
    receiver.answer = () => 200;
    await record('after pause');
    clock.advance(60 * 60 * 1000);
    deliverer.wake();
    await new Promise((done) => setTimeout(done, 300));
    expect(receiver.received).toHaveLength(4);
    await api().delete(`/v1/auditevents/streams/${created.body.id}`).expect(204);
  });
});
