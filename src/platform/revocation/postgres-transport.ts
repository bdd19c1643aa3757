import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import type { AppLogger } from '../common/logging/logger';
import type { Transport } from './transport';

const RECONNECT_DELAY_MS = 1000;

/**
 * PostgreSQL LISTEN/NOTIFY, whenever instances share PostgreSQL: the operator CLI and every instance reach the
 * same database, so a revocation made anywhere reaches every cache, with or without Redis.
 */
export class PostgresTransport implements Transport {
  readonly name = 'postgres';
  /** Channels are per database, so one name serves every deployment. */
  private static readonly CHANNEL = 'staff_auth_revocations';
  private listener?: Client;
  private stopped = false;
  /** Whether the current outage has been logged already: one line per lost connection, not per retry. */
  private lostLogged = false;

  constructor(
    private readonly url: string,
    private readonly dataSource: DataSource,
    private readonly logger: AppLogger,
  ) {}

  async start(deliver: (message: string) => void, resumed: () => void): Promise<void> {
    const client = new Client({ connectionString: this.url, connectionTimeoutMillis: 3000, keepAlive: true });
    client.on('notification', (notification) => notification.payload && deliver(notification.payload));
    client.on('error', () => this.lost(client, deliver, resumed));
    client.on('end', () => this.lost(client, deliver, resumed));
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${PostgresTransport.CHANNEL}`);
      if (this.lostLogged) {
        this.logger.info('revocation listener reconnected to the database');
        this.lostLogged = false;
        // Only now, listening again: a notice sent from here on arrives, one sent before may not have.
        resumed();
      }
    } catch (error) {
      this.lost(client, deliver, resumed);
      throw error;
    }
  }

  async send(message: string): Promise<number> {
    // The listeners are the sessions whose last statement was this LISTEN: one per instance, this one included.
    // (Sessions of another role show no query text; then nobody is waited for and delivery is best effort.)
    const [{ listeners }] = await this.dataSource.query(
      `SELECT (SELECT count(*)::int FROM pg_stat_activity
                WHERE datname = current_database() AND query = $2) AS listeners,
              pg_notify($1, $3)`,
      [PostgresTransport.CHANNEL, `LISTEN ${PostgresTransport.CHANNEL}`, message],
    );
    return Math.max(0, Number(listeners) - 1);
  }

  async reply(message: string): Promise<void> {
    await this.dataSource.query('SELECT pg_notify($1, $2)', [PostgresTransport.CHANNEL, message]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.listener?.end().catch(() => undefined);
  }

  /** The listening connection broke (error and end may both fire): replace it once, after a pause. */
  private lost(client: Client, deliver: (message: string) => void, resumed: () => void): void {
    if (this.listener !== client) return;
    this.listener = undefined;
    client.end().catch(() => undefined);
    if (this.stopped) return;
    setTimeout(() => {
      if (this.stopped) return;
      this.start(deliver, resumed).catch(() => undefined);
    }, RECONNECT_DELAY_MS).unref();
    if (this.lostLogged) return;
    this.lostLogged = true;
    this.logger.warn('revocation listener lost its database connection; reconnecting');
  }
}
