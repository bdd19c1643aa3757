import { DataSource } from 'typeorm';
import type { AuditEventInput } from '../src/audit/recorder/audit-event';
import { AuditEvent } from '../src/audit/recorder/audit-event.entity';
import { AuditRecorder } from '../src/audit/recorder/audit-recorder.service';
import { AppMetrics } from '../src/platform/common/metrics/app-metrics';
import { currentTestDatabase } from './support/databases';
import { createCompanies } from './support/fixtures';
import type { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';

class IntendedRollback extends Error {}

async function authEventCount(t: TestApp, type: string): Promise<number> {
  const text = await t.app.get(AppMetrics).scrape();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`auth_events_total{type="${type}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe(`AuditRecorder (${currentTestDatabase()})`, () => {
  let t: TestApp;
  let dataSource: DataSource;
  let recorder: AuditRecorder;
  let companyId: number;

  const event = (marker: string, extra: Partial<AuditEventInput> = {}): AuditEventInput => ({
    type: 'employee.created',
    companyId,
    actor: { kind: 'operator', id: null, email: null },
    subject: { kind: 'employee', id: 7, email: 'seven@example.test' },
    details: { marker },
    ...extra,
  });
  const stored = (marker: string) =>
    dataSource
      .getRepository(AuditEvent)
      .createQueryBuilder('e')
      .where(`e.details ->> 'marker' = :marker`, { marker })
      .orderBy('e.id')
      .getMany();
  const logged = (marker: string) =>
    t.logs.records.filter(
      (record) =>
        record.msg === 'audit' && (record.event as { details: { marker?: string } }).details.marker === marker,
    );

  beforeAll(async () => {
    t = await startTestApp();
    dataSource = t.app.get(DataSource);
    recorder = t.app.get(AuditRecorder);
    [{ id: companyId }] = await createCompanies(t, 'Audit recorder Co');
  });
  afterAll(() => t?.close());

  it('stores the events with one INSERT in the transaction, and announces them only after the commit', async () => {
    const before = await authEventCount(t, 'employee.created');
    (t.clock as ManualClock).set('2026-03-01T10:00:00.000Z');
    let statements = 0;
    await dataSource.transaction(async (manager) => {
      const query = manager.query.bind(manager);
      manager.query = ((sql: string, parameters?: unknown[]) => {
        statements++;
        return query(sql, parameters);
      }) as typeof manager.query;
      await recorder.record(manager, [event('commit-a'), event('commit-b', { type: 'membership.added' })]);
      expect(statements).toBe(1);
      // Stored in the open transaction, not yet announced.
      expect(logged('commit-a')).toEqual([]);
    });
    const [a] = await stored('commit-a');
    expect(a).toMatchObject({ companyId, type: 'employee.created', actorKind: 'operator', subjectId: '7' });
    expect(a.occurredAt.toISOString()).toBe('2026-03-01T10:00:00.000Z');
    expect(logged('commit-a')).toHaveLength(1);
    expect(logged('commit-b')).toHaveLength(1);
    expect(logged('commit-a')[0].event).toMatchObject({
      id: a.id,
      occurred_at: '2026-03-01T10:00:00.000Z',
      type: 'employee.created',
      company_id: companyId,
      actor: { kind: 'operator', id: null, email: null },
      subject: { kind: 'employee', id: 7, email: 'seven@example.test' },
    });
    expect((await authEventCount(t, 'employee.created')) - before).toBe(1);
  });

  it('stores, logs and counts nothing for a transaction that rolls back', async () => {
    const before = await authEventCount(t, 'apikey.revoked');
    await expect(
      dataSource.transaction(async (manager) => {
        await recorder.record(manager, event('rolled-back', { type: 'apikey.revoked' }));
        throw new IntendedRollback();
      }),
    ).rejects.toBeInstanceOf(IntendedRollback);
    expect(await stored('rolled-back')).toEqual([]);
    expect(logged('rolled-back')).toEqual([]);
    expect(await authEventCount(t, 'apikey.revoked')).toBe(before);
  });

  it('drops the events of a rolled-back savepoint and keeps those of the enclosing transaction', async () => {
    await dataSource.transaction(async (manager) => {
      await recorder.record(manager, event('outer'));
      await manager
        .transaction(async (inner) => {
          await recorder.record(inner, event('inner-rolled-back'));
          throw new IntendedRollback();
        })
        .catch(() => undefined);
      await manager.transaction((inner) => recorder.record(inner, event('inner-released')));
      expect(logged('inner-released')).toEqual([]);
    });
    expect(await stored('outer')).toHaveLength(1);
    expect(await stored('inner-released')).toHaveLength(1);
    expect(await stored('inner-rolled-back')).toEqual([]);
    expect(logged('outer')).toHaveLength(1);
    expect(logged('inner-released')).toHaveLength(1);
    expect(logged('inner-rolled-back')).toEqual([]);
  });

  it('announces at once when recorded outside a transaction, and cuts the user agent to 256 characters', async () => {
    const userAgent = 'Mozilla/5.0 '.repeat(40) + '\u{1F600}'.repeat(10);
    await recorder.record(dataSource.manager, event('no-transaction', { userAgent, ip: '203.0.113.9' }));
    const [row] = await stored('no-transaction');
    expect(row.userAgent).toBe(userAgent.slice(0, 256));
    expect(row.ip).toBe('203.0.113.9');
    expect(logged('no-transaction')).toHaveLength(1);

    // Cut between the halves of a surrogate pair: the lone half goes too.
    const emoji = 'a' + '\u{1F600}'.repeat(200);
    await recorder.record(dataSource.manager, event('surrogates', { userAgent: emoji }));
    const [cut] = await stored('surrogates');
    expect(cut.userAgent).toBe(emoji.slice(0, 255));
  });
});
