import type { AddressInfo } from 'node:net';
import { getOnOneConnection } from './support/raw-http';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * issue 19: the administration page and the API documentation kept connections open like the API does, rather
 * than answering `Connection: close` and making a browser open a new connection for every file.
 */
describe('keep-alive on /admin and /docs', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  it.each([
    ['the API', ['/health/live', '/health/live']],
    ['/admin', ['/admin', '/admin/']],
    ['/docs', ['/docs', '/docs/openapi.json']],
    ['/admin then /docs', ['/admin', '/docs', '/v1/products', '/admin/assets/missing.js']],
  ])('%s: answers every request of one connection, none with Connection: close', async (_what, paths) => {
    const answers = await getOnOneConnection(port, paths);
    expect(answers.map((answer) => answer.headers.connection)).toEqual(paths.map(() => 'keep-alive'));
    // Real answers, not errors: the documentation page and its document are there.
    for (const [index, path] of paths.entries()) if (path.startsWith('/docs')) expect(answers[index].status).toBe(200);
  });
});
