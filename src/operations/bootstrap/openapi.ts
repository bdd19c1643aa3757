import type { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DECORATORS, DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { AuthRuleMetadata } from '../../access/rules/auth.decorator';
import { controllersOf, routeCatalogue } from '../../platform/common/http/route-catalogue';
import { RateLimit } from '../../access/rules/rate-limit.decorator';
import { docsFiles, LOGIN_PATHS, registerDocsPage } from './docs-page';
import { completeDocument, type RouteRules } from './openapi-responses';

export const OPENAPI_JSON_PATH = '/docs/openapi.json';

/** The security scheme of the raw credential in `Authorization`, which Swagger UI's "Authorize" fills in. */
const SECURITY_SCHEME = 'Authorization';

/**
 * The document's first screen: what the service is, how to log in on this page, and where the rest is written
 * (error codes, headers and limits are in each operation and under `components`), in a few sentences rather
 * than a wall of inline code.
 */
const API_INTRO = [
  'Company-bound login tokens for staff, and a request budget for every client.',
  '',
  '**Start here:** `authenticateinit` tells which companies an account belongs to; `authenticatefinish` logs in ' +
    'to one of them. Its "Try it out" starts from the demo owner of a first `npm start`: paste the password ' +
    'that start printed, press Execute, and every call after it on this page is authorized.',
  '',
  '**Calling the API:** send the token as the whole `Authorization` value (no "Bearer"); an API key works the ' +
    'same way. Errors answer one shape, `{"error": [code], "message"}`, with a sentence that says what to fix. ' +
    'Each answer says how many more requests its bucket takes right now (the X-Rate-Limit headers); a request ' +
    'over the budget answers 429 with Retry-After.',
  '',
  'More: [the administration page](/admin) · [this document as JSON](/docs/openapi.json) · ' +
    '[the token signing keys](/.well-known/jwks.json) · SCIM 2.0 provisioning, left out of this document, ' +
    'describes itself at [/scim/v2/ServiceProviderConfig](/scim/v2/ServiceProviderConfig).',
].join('\n');

/** CRUD verbs that say nothing alone: `list` on ProductsController is `listProducts`, `get` is `getProduct`. */
const GENERIC_VERBS: Record<string, string> = {
  list: 'list',
  create: 'create',
  get: 'get',
  replace: 'replace',
  update: 'update',
  remove: 'delete',
  revoke: 'revoke',
  upload: 'upload',
};

/**
 * Readable operation ids, which generated clients turn into method names: the handler's own name
 * (`authenticateFinish`, `listMessages`), with the controller's resource added to a bare CRUD verb
 * (`listProducts`, `getProduct`, `deleteProduct`). `@ApiOperation({ operationId })` overrides it.
 */
export function operationIdOf(controllerKey: string, methodKey: string): string {
  const verb = GENERIC_VERBS[methodKey];
  if (!verb) return methodKey;
  const plural = controllerKey.replace(/Controller$/, '');
  return verb + (methodKey === 'list' ? plural : plural.replace(/s$/, ''));
}

/** The id the generator gives an operation first: unique, so that it finds its route's rules. */
const documentKeyOf = (controllerKey: string, methodKey: string) => `${controllerKey}.${methodKey}`;

/**
 * The rules every route declares (access rule, rate limit), keyed by operation id, read from the same metadata
 * the guards read, so the document's error answers follow the routes' real rules.
 */
function collectRouteRules(app: INestApplication): Map<string, RouteRules> {
  const rules = new Map<string, RouteRules>();
  for (const route of routeCatalogue(controllersOf(app.get(ModulesContainer)))) {
    const { controller, handler, handlerName } = route;
    const declared = Reflect.getMetadata(DECORATORS.API_OPERATION, handler) as { operationId?: string } | undefined;
    // As RateLimitPolicy reads it: the route's own rule wins over the controller's, key by key.
    const rateLimit = route.ruleParts(RateLimit);
    const skip = rateLimit.handler?.skip ?? rateLimit.controller?.skip;
    rules.set(declared?.operationId ?? documentKeyOf(controller.name, handlerName), {
      operationId: declared?.operationId ?? operationIdOf(controller.name, handlerName),
      qualifiedOperationId: `${handlerName}${controller.name.replace(/Controller$/, '')}`,
      auth: route.rule(AuthRuleMetadata),
      rateLimited: skip !== true,
    });
  }
  return rules;
}

/**
 * The order a newcomer meets the API in: the two login steps, renewing and logging out open the authentication
 * tag (the controller declares the company switch first), and that tag comes first (Swagger UI lists tags in the
 * order of `tags`, then as they appear).
 */
export const LOGIN_FIRST = [
  '/v1/users/authenticateinit',
  '/v1/users/authenticatefinish',
  '/v1/users/refreshtoken',
  '/v1/users/logout',
];
const FIRST_TAG = {
  name: 'users: authentication',
  description:
    'Log in with authenticateinit (which companies) then authenticatefinish (the token for one company); a login ' +
    'through "Try it out" authorizes the calls that follow.',
};

/** The paths of `first` first, in its order, then the others in theirs (each tag keeps its operations' order). */
export function loginFirst(paths: OpenAPIObject['paths'], first = LOGIN_FIRST): OpenAPIObject['paths'] {
  const leading = first.filter((path) => paths[path]).map((path) => [path, paths[path]] as const);
  return Object.fromEntries([...leading, ...Object.entries(paths).filter(([path]) => !first.includes(path))]);
}

/** The OpenAPI document of the application's routes, complete with every answer their rules imply. */
export function createOpenApiDocument(app: INestApplication, options = { strict: false }): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Staff auth and rate limit API')
      .setDescription(API_INTRO)
      .setVersion('1')
      .addServer('/', 'The instance serving this document')
      .addApiKey(
        { type: 'apiKey', in: 'header', name: 'Authorization', description: 'The raw JWT or key:secret (no Bearer)' },
        SECURITY_SCHEME,
      )
      .build(),
    { operationIdFactory: documentKeyOf },
  );
  // Not open source (package.json): a name without a URL.
  document.info.license = { name: 'UNLICENSED' };
  document.paths = loginFirst(document.paths);
  document.tags = [FIRST_TAG];
  return completeDocument(document, collectRouteRules(app), options);
}

/** /docs: Swagger UI and the document (docs-page.ts serves them under the pages' CSP). */
export function setUpOpenApi(app: NestFastifyApplication): void {
  const document = JSON.stringify(createOpenApiDocument(app));
  registerDocsPage(
    app.getHttpAdapter().getInstance(),
    docsFiles(document, {
      url: OPENAPI_JSON_PATH,
      schemeName: SECURITY_SCHEME,
      loginPaths: LOGIN_PATHS,
      // A reload keeps the token (in the browser's localStorage, as Swagger UI does).
      persistAuthorization: true,
      displayOperationId: true,
    }),
  );
}
