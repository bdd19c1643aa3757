import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { notFound, PAGE_SECURITY_HEADERS } from './admin-page';
import { compactLayoutPlugin, DOCS_PAGE_CSS } from './docs-page-layout';

/** The operations whose 200 answer carries a new token (`jwt`) that Swagger UI then sends on every call. */
export const LOGIN_PATHS = [
  '/v1/users/authenticatefinish',
  '/v1/users/refreshtoken',
  '/v1/users/changeworkingcompany',
  '/v1/users/invitations/accept',
];

/** What the initializer needs to know, serialised into it as JSON. */
export interface DocsSettings {
  /** The OpenAPI document's path. */
  url: string;
  /** The security scheme Swagger UI's "Authorize" fills in (`addApiKey` in openapi.ts). */
  schemeName: string;
  loginPaths: string[];
  persistAuthorization: boolean;
  displayOperationId: boolean;
}

interface SwaggerResponse {
  url: string;
  status: number;
  body?: unknown;
  obj?: unknown;
}

interface SwaggerUi {
  preauthorizeApiKey(schemeName: string, value: string): void;
  authActions: { persistAuthorizationIfNeeded(): void };
}

interface SwaggerBundle {
  (options: Record<string, unknown>): SwaggerUi;
  presets: { apis: unknown };
}

/**
 * Runs in the browser, as /docs/swagger-initializer.js: Swagger UI's stock page starts it from an inline script,
 * which the page's CSP (`script-src 'self'`) refuses. It must use nothing from this module's scope, since its
 * source text is what is served. A 200 from a login operation authorizes the calls that follow with its token,
 * as "Authorize" would, so nobody copies a token by hand; and, as "Authorize" does, it keeps that token over a
 * reload (Swagger UI's `preauthorizeApiKey` alone does not store it).
 */
export function initializeSwaggerUi(
  settings: DocsSettings,
  page: Record<string, unknown> = globalThis,
  plugins: unknown[] = [],
): SwaggerUi {
  const bundle = page.SwaggerUIBundle as SwaggerBundle;
  const ui: SwaggerUi = bundle({
    url: settings.url,
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [bundle.presets.apis],
    layout: 'BaseLayout',
    plugins,
    persistAuthorization: settings.persistAuthorization,
    displayOperationId: settings.displayOperationId,
    // The default sends the document to validator.swagger.io; the CSP forbids it, and it is not ours to send.
    validatorUrl: null,
    responseInterceptor: (response: SwaggerResponse) => {
      const body = (response.body ?? response.obj) as { jwt?: unknown } | null | undefined;
      // Only the path matters; the base resolves a relative URL, should Swagger UI ever report one.
      const path = new URL(response.url, 'http://relative.invalid').pathname;
      if (response.status === 200 && settings.loginPaths.includes(path) && typeof body?.jwt === 'string') {
        ui.preauthorizeApiKey(settings.schemeName, body.jwt);
        // Stores it when persistAuthorization is on, as the "Authorize" dialog does.
        ui.authActions.persistAuthorizationIfNeeded();
      }
      return response;
    },
  });
  page.ui = ui;
  return ui;
}

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Staff auth API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="stylesheet" href="/docs/index.css">
<link rel="stylesheet" href="/docs/docs-page.css">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="/docs/favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/swagger-initializer.js"></script>
</body>
</html>
`;

/** The files of swagger-ui-dist the page loads; the rest of the package (its own index.html, maps) is not served. */
const SWAGGER_UI_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/** swagger-ui-dist as @nestjs/swagger resolves it, so the version is the one Nest was built against. */
function swaggerUiDir(): string {
  const from = dirname(require.resolve('@nestjs/swagger'));
  return dirname(require.resolve('swagger-ui-dist/package.json', { paths: [from] }));
}

interface DocsFile {
  body: string | Buffer;
  type: string;
  cache: string;
}

/** What /docs serves, by path under /docs/: the page, its initializer and styles, the document, Swagger UI's files. */
export function docsFiles(documentJson: string, settings: DocsSettings, dir = swaggerUiDir()): Map<string, DocsFile> {
  const revalidate = 'no-cache';
  const files = new Map<string, DocsFile>([
    ['', { body: PAGE, type: 'text/html; charset=utf-8', cache: revalidate }],
    [
      'swagger-initializer.js',
      {
        body: `(${initializeSwaggerUi.toString()})(${JSON.stringify(settings)}, globalThis, [${compactLayoutPlugin.toString()}]);\n`,
        type: 'text/javascript; charset=utf-8',
        cache: revalidate,
      },
    ],
    ['openapi.json', { body: documentJson, type: 'application/json; charset=utf-8', cache: revalidate }],
    ['docs-page.css', { body: DOCS_PAGE_CSS, type: 'text/css; charset=utf-8', cache: revalidate }],
  ]);
  for (const [name, type] of Object.entries(SWAGGER_UI_FILES)) {
    // Not content-hashed: browsers keep them a day, then ask again (a deploy may bring a new Swagger UI).
    files.set(name, { body: readFileSync(join(dir, name)), type, cache: 'public, max-age=86400' });
  }
  return files;
}

/**
 * Serves Swagger UI at /docs straight from Fastify, like /admin: under the same CSP and framing headers, only
 * the files the page loads (read once at start), everything else under /docs answering 404 in the API's error
 * shape.
 */
export function registerDocsPage(fastify: FastifyInstance, files: Map<string, DocsFile>): void {
  const send = (name: string, reply: FastifyReply) => {
    reply.headers(PAGE_SECURITY_HEADERS);
    const file = files.get(name);
    if (!file) return notFound(reply, 'No such file of the API documentation.');
    return reply.header('cache-control', file.cache).type(file.type).send(file.body);
  };
  fastify.get('/docs', (_request, reply) => send('', reply));
  fastify.get<{ Params: { '*': string } }>('/docs/*', (request, reply) => send(request.params['*'], reply));
}
