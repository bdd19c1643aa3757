import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';

/** Initialises one empty PGlite folder for the run; each test file copies it instead of running initdb. */
export default async function embeddedGlobalSetup(): Promise<void> {
  process.env.JEST_RUN_ID ??= `${process.pid}-${randomBytes(3).toString('hex')}`;
  const { EMBEDDED_TEMPLATE_DIR } = await import('./databases');
  rmSync(EMBEDDED_TEMPLATE_DIR, { recursive: true, force: true });
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(EMBEDDED_TEMPLATE_DIR);
  await db.close();
}
