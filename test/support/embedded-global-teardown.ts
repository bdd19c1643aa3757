import { rmSync } from 'node:fs';

export default async function embeddedGlobalTeardown(): Promise<void> {
  const { EMBEDDED_TEMPLATE_DIR } = await import('./databases');
  rmSync(EMBEDDED_TEMPLATE_DIR, { recursive: true, force: true });
}
