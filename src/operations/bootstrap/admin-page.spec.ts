import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { ADMIN_PAGE_CSP, adminPageDir, registerAdminPage } from './admin-page';

describe('registerAdminPage', () => {
  let dir: string;
  let app: FastifyInstance;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'admin-page-'));
    app = Fastify();
  });

  afterEach(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function build(files: Record<string, string>): void {
    for (const [name, body] of Object.entries(files)) {
      mkdirSync(join(dir, name, '..'), { recursive: true });
      writeFileSync(join(dir, name), body);
    }
    registerAdminPage(app, dir);
  }

  it('serves the page at /admin and /admin/ with the security headers, revalidated on every load', async () => {
    build({ 'index.html': '<!doctype html><title>x</title>' });
    for (const url of ['/admin', '/admin/']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('<!doctype html><title>x</title>');
      expect(res.headers).toMatchObject({
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': ADMIN_PAGE_CSP,
        'x-frame-options': 'DENY',
        'referrer-policy': 'no-referrer',
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-cache',
      });
    }
    expect(ADMIN_PAGE_CSP).toContain("frame-ancestors 'none'");
    expect(ADMIN_PAGE_CSP).not.toMatch(/unsafe-(inline|eval)/);
  });

  it('serves the hashed assets for good, and only the known file types among them', async () => {
    build({
      'index.html': '<!doctype html>',
      'assets/index-abc123.js': 'console.log(1)',
      'assets/index-abc123.css': 'body{}',
      'assets/notes.txt': 'not served',
    });
    const script = await app.inject({ method: 'GET', url: '/admin/assets/index-abc123.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.headers['x-frame-options']).toBe('DENY');
    const style = await app.inject({ method: 'GET', url: '/admin/assets/index-abc123.css' });
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8');

    for (const url of ['/admin/assets/notes.txt', '/admin/assets/missing.js', '/admin/assets/..%2Findex.html']) {
      const res = await app.inject({ method: 'GET', url });
      expect({ url, status: res.statusCode, body: res.json() }).toEqual({
        url,
        status: 404,
        body: { error: ['error_not_found'], message: 'No such file of the administration page.' },
      });
    }
  });

  it('says how to build the page when it is not built, in the error shape', async () => {
    registerAdminPage(app, join(dir, 'nothing-here'));
    const res = await app.inject({ method: 'GET', url: '/admin' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      error: ['error_not_found'],
      message: 'The administration page is not built: run "npm run build".',
    });
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it('finds dist/admin under the package root from the sources and from the build', () => {
    const root = resolve(__dirname, '..', '..', '..');
    expect(adminPageDir(__dirname)).toBe(join(root, 'dist', 'admin'));
    expect(adminPageDir(join(root, 'dist', 'src', 'operations', 'bootstrap'))).toBe(join(root, 'dist', 'admin'));
  });
});
