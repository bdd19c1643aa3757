/**
 * The PostgreSQL project needs a real server. When it cannot be reached the run fails with a message saying
 * so; it never passes by skipping those tests.
 */
export default async function postgresGlobalSetup(): Promise<void> {
  const { POSTGRES_ADMIN_URL, withAdminClient } = await import('./databases');
  try {
    await withAdminClient((client) => client.query('SELECT 1'));
  } catch (error) {
    const where = new URL(POSTGRES_ADMIN_URL);
    throw new Error(
      `PostgreSQL is not reachable at ${where.host} (${(error as Error).message}). Start it, or set ` +
        'TEST_POSTGRES_URL; the end-to-end suite runs against PostgreSQL as well as the embedded database.',
      { cause: error },
    );
  }
}
