import { performance } from 'node:perf_hooks';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import {
  CHILD_TEST_ENV,
  CLEAN_EXIT,
  exitStatus,
  killChildren,
  logRecords,
  requireBuild,
  startService,
} from './support/processes';

/** Nothing listens here (the test's own port range): Redis is unreachable for the whole life of the service. */
const CLOSED_REDIS_URL = 'redis://127.0.0.1:42199';
const SHUTDOWN_TIMEOUT_MS = 10_000;

/**
 * Redis is an accelerator: a service that never reached it must not wait for it on the way out either. With
 * nothing in flight, SIGTERM ends the process at once with code 0, not after SHUTDOWN_TIMEOUT_MS.
 */
describe('SIGTERM while Redis is unreachable', () => {
  let database: ProvisionedDatabase;

  beforeAll(async () => {
    requireBuild();
    database = await provisionDatabase('postgres');
  });

  afterAll(async () => {
    await killChildren();
    await database?.drop();
  });

  it('exits with code 0 well before the shutdown timeout', async () => {
    const service = await startService({
      ...CHILD_TEST_ENV,
      ...database.env,
      PORT: '0',
      LOG_LEVEL: 'info',
      REDIS_URL: CLOSED_REDIS_URL,
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    });
    const health = await fetch(`${service.url}/health/live`);
    expect(health.status).toBe(200);

    const signalled = performance.now();
    const exited = await service.stop('SIGTERM', SHUTDOWN_TIMEOUT_MS + 5_000);
    const tookMs = performance.now() - signalled;
    console.log(`exited ${Math.round(tookMs)} ms after SIGTERM with Redis unreachable`);

    expect(exitStatus(exited)).toEqual(CLEAN_EXIT);
    expect(logRecords(exited.stdout).map((record) => record.msg)).not.toContain('shutdown timed out');
    expect(tookMs).toBeLessThan(2_000);
  });
});
