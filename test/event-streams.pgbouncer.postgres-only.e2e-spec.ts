import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/platform/config/app-config';
import { dataSourceOptions } from '../src/data-source';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { call, createFleetAccount, logIn, startFleet } from './support/fleet';
import { PgBouncer } from './support/pgbouncer';
import { streamRecorder } from './support/stream-recorder';
import { killChildren, requireBuild, type RunningService } from './support/processes';
import { WebhookReceiver } from './support/webhook-receiver';

const EVENTS = 600;

/**
 * Stream deliveries behind PgBouncer in transaction mode (server_round_robin, few server connections): the
 * transaction-scoped advisory lock of a batch must hold within its transaction and be gone afterwards, whatever
 * server connection the pooler lends next.
 */
describe('security-event streams behind PgBouncer in transaction mode (two instances)', () => {
  let bouncer: PgBouncer;
  let database: ProvisionedDatabase;
  let services: RunningService[];
  let receiver: WebhookReceiver;
  let dataSource: DataSource;

  beforeAll(async () => {
    requireBuild();
    bouncer = await PgBouncer.start('postgres://postgres@127.0.0.1:5432/test', 3);
    database = await provisionDatabase('postgres');
    receiver = await new WebhookReceiver().start();
    services = await startFleet(2, {
      ...database.env,
      DATABASE_URL: bouncer.pooled(database.url!),
      DATABASE_DIRECT_URL: database.url!,
      STREAMS_ALLOWLIST: '127.0.0.1',
      STREAMS_POLL_MS: '50',
      STREAMS_RETRY_BASE_MS: '1',
    });
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url!, JWT_SECRET: 'x'.repeat(32) });
    dataSource = await new DataSource(dataSourceOptions(config)).initialize();
  }, 90_000);
  afterAll(async () => {
    await killChildren();
    await dataSource?.destroy();
    await receiver?.close();
    await bouncer?.stop();
    await database?.drop();
  });

  it('delivers every event once accepted, in order and signed, and leaves no advisory lock held', async () => {
    const account = await createFleetAccount(database.url!);
    const [companyId] = account.companies;
    const { jwt } = (await logIn(services[0].url, account)).body as { jwt: string };
    const created = await call(services[1].url, 'POST', '/v1/auditevents/streams', {
      credential: jwt,
      body: { url: receiver.url },
    });
    expect(created.status).toBe(201);
    const { id: streamId, secret } = created.body as { id: string; secret: string };
    let n = 0;
    receiver.answer = () => (++n % 4 === 0 ? 500 : 200);

    const recorder = await streamRecorder(dataSource);
    for (let seq = 0; seq < EVENTS; seq += 10) {
      const batch = Array.from({ length: 10 }, (_, i) => ({
        type: 'permissions.changed' as const,
        companyId,
        actor: { kind: 'operator' as const, id: null, email: null },
        details: { seq: seq + i },
      }));
      await dataSource.transaction((manager) => recorder.record(manager, batch));
    }
    const accepted = () => new Set(receiver.accepted.map((r) => String(r.headers['webhook-id'])));
    await receiver.waitFor(() => accepted().size >= EVENTS, 60_000, `${EVENTS} accepted events`);

    const webhook = new Webhook(secret);
    const firstSeqs: number[] = [];
    const seen = new Set<string>();
    for (const request of receiver.accepted) {
      const verified = webhook.verify(request.body, request.headers as Record<string, string>) as {
        data: { details: { seq: number } };
      };
      const id = String(request.headers['webhook-id']);
      if (seen.has(id)) continue;
      seen.add(id);
      firstSeqs.push(verified.data.details.seq);
    }
    expect(firstSeqs).toEqual(Array.from({ length: EVENTS }, (_, i) => i));

    const deleted = await call(services[0].url, 'DELETE', `/v1/auditevents/streams/${streamId}`, { credential: jwt });
    expect(deleted.status).toBe(204);
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database
          WHERE l.locktype = 'advisory' AND d.datname = current_database()`,
      );
      expect(rows[0].n).toBe(0);
    } finally {
      await client.end();
    }
  }, 120_000);
});
