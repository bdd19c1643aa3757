import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The administration page is built into dist/admin, next to the compiled service that serves it at /admin.
 * No inline script or style and no module-preload polyfill, so the page runs under a CSP without 'unsafe-inline'.
 */
export default defineConfig({
  root: here,
  base: '/admin/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: `${here}../dist/admin`,
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: 'es2022',
    sourcemap: false,
  },
});
