export default async function postgresGlobalTeardown(): Promise<void> {
  const { POSTGRES_TEMPLATE_DATABASE, withAdminClient } = await import('./databases');
  await withAdminClient((client) =>
    client.query(`DROP DATABASE IF EXISTS "${POSTGRES_TEMPLATE_DATABASE}" WITH (FORCE)`),
  );
}
