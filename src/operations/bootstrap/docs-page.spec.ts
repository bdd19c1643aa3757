import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { type DocsSettings, docsFiles, initializeSwaggerUi, LOGIN_PATHS } from './docs-page';

const SETTINGS: DocsSettings = {
  url: '/docs/openapi.json',
  schemeName: 'Authorization',
  loginPaths: LOGIN_PATHS,
  persistAuthorization: true,
  displayOperationId: true,
};

/** A stand-in for Swagger UI's bundle that records its options and the tokens it was given. */
function fakeBundle() {
  const authorized: Array<[string, string]> = [];
  /** What was authorized each time the initializer asked Swagger UI to store the authorization. */
  const persisted: Array<Array<[string, string]>> = [];
  let options: Record<string, any> = {};
  const bundle = Object.assign(
    (given: Record<string, unknown>) => {
      options = given;
      return {
        preauthorizeApiKey: (name: string, value: string) => authorized.push([name, value]),
        authActions: { persistAuthorizationIfNeeded: () => persisted.push([...authorized]) },
      };
    },
    { presets: { apis: 'apis-preset' } },
  );
  return { bundle, authorized, persisted, options: () => options };
}

describe('initializeSwaggerUi (the /docs initializer)', () => {
  it.each(LOGIN_PATHS)('authorizes the following calls with the token of a 200 from %s', (path) => {
    const fake = fakeBundle();
    initializeSwaggerUi(SETTINGS, { SwaggerUIBundle: fake.bundle });
    const response = { url: `http://127.0.0.1:3000${path}`, status: 200, body: { jwt: 'a.b.c' } };
    expect(fake.options().responseInterceptor(response)).toBe(response);
    expect(fake.authorized).toEqual([['Authorization', 'a.b.c']]);
    // Stored as "Authorize" stores a pasted token, so that a reload keeps it.
    expect(fake.persisted).toEqual([[['Authorization', 'a.b.c']]]);
  });

  it.each([
    ['a refused login', { url: '/v1/users/authenticatefinish', status: 401, body: { error: ['x'] } }],
    ['another operation', { url: '/v1/users/me', status: 200, body: { jwt: 'a.b.c' } }],
    [
      'a login path in the query only',
      { url: '/v1/users/me?x=/v1/users/refreshtoken', status: 200, body: { jwt: 'j' } },
    ],
    ['an answer without a token', { url: '/v1/users/authenticatefinish', status: 200, body: { totp_required: true } }],
    ['an answer without a body', { url: '/v1/users/refreshtoken', status: 200, body: null }],
  ])('leaves the authorization alone on %s', (_what, response) => {
    const fake = fakeBundle();
    initializeSwaggerUi(SETTINGS, { SwaggerUIBundle: fake.bundle });
    fake.options().responseInterceptor(response);
    expect(fake.authorized).toEqual([]);
    expect(fake.persisted).toEqual([]);
  });

  it('sends the document nowhere else (no validator) and keeps the authorization across reloads', () => {
    const fake = fakeBundle();
    initializeSwaggerUi(SETTINGS, { SwaggerUIBundle: fake.bundle });
    expect(fake.options()).toMatchObject({ url: '/docs/openapi.json', validatorUrl: null, persistAuthorization: true });
  });

  it('hands Swagger UI the plugins it is given', () => {
    const fake = fakeBundle();
    const plugin = () => ({});
    initializeSwaggerUi(SETTINGS, { SwaggerUIBundle: fake.bundle }, [plugin]);
    expect(fake.options().plugins).toEqual([plugin]);
  });
});

describe('docsFiles', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'swagger-ui-dist-'));
    for (const name of [
      'swagger-ui.css',
      'index.css',
      'swagger-ui-bundle.js',
      'favicon-32x32.png',
      'favicon-16x16.png',
    ])
      writeFileSync(join(dir, name), name);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves only the page, its initializer, the document and the Swagger UI files it loads', () => {
    expect([...docsFiles('{}', SETTINGS, dir).keys()].sort()).toEqual([
      '',
      'docs-page.css',
      'favicon-16x16.png',
      'favicon-32x32.png',
      'index.css',
      'openapi.json',
      'swagger-initializer.js',
      'swagger-ui-bundle.js',
      'swagger-ui.css',
    ]);
  });

  it('has a page with no inline script or style, loading every script it names from /docs', () => {
    const page = String(docsFiles('{}', SETTINGS, dir).get('')?.body);
    expect(page).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);
    expect([...page.matchAll(/<script src="([^"]+)"/g)].map((match) => match[1])).toEqual([
      '/docs/swagger-ui-bundle.js',
      '/docs/swagger-initializer.js',
    ]);
    expect([...page.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((match) => match[1])).toEqual([
      '/docs/swagger-ui.css',
      '/docs/index.css',
      '/docs/docs-page.css',
    ]);
  });

  it('has an initializer that runs on its own, with nothing but the page’s globals', () => {
    const fake = fakeBundle();
    const context: Record<string, unknown> = { SwaggerUIBundle: fake.bundle, URL };
    runInNewContext(String(docsFiles('{}', SETTINGS, dir).get('swagger-initializer.js')?.body), context);
    expect(context.ui).toBeDefined();
    // The layout plugin is served in the same file, as source text: it too runs with nothing from the module.
    const [plugin] = fake.options().plugins as Array<(system: unknown) => { wrapComponents: object }>;
    expect(Object.keys(plugin({ React: { createElement: () => null } }).wrapComponents).sort()).toEqual([
      'headers',
      'response',
      'responses',
    ]);
    fake.options().responseInterceptor({ url: '/v1/users/refreshtoken', status: 200, body: { jwt: 'r.e.f' } });
    expect(fake.authorized).toEqual([['Authorization', 'r.e.f']]);
  });
});
