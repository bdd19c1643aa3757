import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import type { AppLogger } from '../src/platform/common/logging/logger';
import { PostgresTransport } from '../src/platform/revocation/postgres-transport';
import { type ProvisionedDatabase, provisionDatabase, withAdminClient } from './support/databases';
import { eventually } from './support/eventually';

/**
 * A notice sent while an instance's LISTEN connection is gone never reaches it: PostgreSQL keeps no notification
 * for a session that is not listening. The transport says so when it listens again (`resumed`), and the bus then
 * has every cache start over (credential.service.spec). Found by postgres-outage.two-instances, where a logout
 * made just before the listener came back was answered from the other instance's cache.
 */
describe('PostgreSQL revocation transport when its listening connection is lost', () => {
  let database: ProvisionedDatabase;
  let sender: Client;
  let listener: PostgresTransport;
  const logger = { info: jest.fn(), warn: jest.fn() };

  beforeAll(async () => {
    database = await provisionDatabase('postgres');
    sender = new Client({ connectionString: database.url });
    await sender.connect();
  });

  afterAll(async () => {
    await listener?.stop();
    await sender?.end();
    await database?.drop();
  });

  it('says notices may have been missed only once it listens again, and hears what is sent from then on', async () => {
    const dataSource = {
      query: async (sql: string, parameters: unknown[]) => (await sender.query(sql, parameters)).rows,
    } as unknown as DataSource;
    const heard: string[] = [];
    let resumed = 0;
    listener = new PostgresTransport(database.url!, dataSource, logger as unknown as AppLogger);
    await listener.start(
      (message) => heard.push(message),
      () => resumed++,
    );
    const publisher = new PostgresTransport(database.url!, dataSource, logger as unknown as AppLogger);

    await publisher.reply('before');
    expect(await eventually(() => heard.includes('before'))).toBe(true);
    expect(resumed).toBe(0);

    const name = new URL(database.url!).pathname.slice(1);
    const ended = await withAdminClient((client) =>
      client.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND query = 'LISTEN staff_auth_revocations'`,
        [name],
      ),
    );
    expect(ended.rowCount).toBe(1);
    await publisher.reply('while away');

    expect(await eventually(() => resumed > 0)).toBe(true);
    expect(resumed).toBe(1);
    expect(heard).not.toContain('while away');
    expect(logger.warn).toHaveBeenCalledWith('revocation listener lost its database connection; reconnecting');
    expect(logger.info).toHaveBeenCalledWith('revocation listener reconnected to the database');

    await publisher.reply('after');
    expect(await eventually(() => heard.includes('after'))).toBe(true);
    expect(resumed).toBe(1);
  });
});
