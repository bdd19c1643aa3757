export default async function postgresGlobalTeardown(): Promise<void> {
  const { POSTGRES_TEMPLATE_DATABASE, POSTGRES_TEST_DATABASE_PREFIX, withAdminClient } = await import('./databases');
  await withAdminClient(async (client) => {
    // This run's databases, then its template: one after another once no test is running (see the prefix's why).
    const { rows } = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname',
      [POSTGRES_TEST_DATABASE_PREFIX],
    );
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await client.query(`DROP DATABASE IF EXISTS "${POSTGRES_TEMPLATE_DATABASE}" WITH (FORCE)`);
  });
}
