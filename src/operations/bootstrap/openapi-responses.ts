import type { MediaTypeObject, OpenAPIObject, OperationObject, ReferenceObject, ResponseObject } from '@nestjs/swagger';
import { authAnswers } from '../../identity/auth/auth-openapi';
import type { AuthRule } from '../../access/rules/auth.decorator';
import { ERROR_CATALOG } from '../../platform/common/errors/error-catalog';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import { codesNamedIn } from '../../platform/common/errors/error-openapi';
import { closeRequestSchemas, dropQueryExamples, inputErrors } from '../../platform/common/http/input-openapi';
import type { AccountLimitExample } from '../../rate-limiting/limiter/rate-limit-openapi';
import { EDGE_ERRORS } from './edge-errors-openapi';
import { plainText, SharedComponents } from './openapi-components';

/** What a route declares that decides its error answers (read from the metadata the guards read). */
export interface RouteRules {
  /** The readable operation id (`listProducts`), and the one used when two routes would share it. */
  operationId: string;
  qualifiedOperationId: string;
  auth: AuthRule | undefined;
  rateLimited: boolean;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type Responses = Record<string, ResponseObject | ReferenceObject>;

/** What the handler itself declares for its error statuses (`@Api…Response({ description: 'error_code: …' })`). */
interface Declared {
  responses: Map<number, ResponseObject>;
  /** Bodies of the handler's own for an error status (the health report's 503), instead of the error body. */
  ownBodies: Map<number, MediaTypeObject>;
  /** The route declares a per-account 429, with this example body. */
  accountLimit: false | AccountLimitExample;
}

function takeDeclared(problems: string[], id: string, responses: Responses, add: (codes: ErrorCode[]) => void) {
  const declared: Declared = { responses: new Map(), ownBodies: new Map(), accountLimit: false };
  for (const [key, response] of Object.entries(responses)) {
    const status = Number(key);
    if (!(status >= 400) || '$ref' in response) continue;
    declared.responses.set(status, response);
    const media = response.content?.['application/json'];
    const named = codesNamedIn(problems, id, status, response.description ?? '', response.content !== undefined);
    if (status === 429) declared.accountLimit = media?.example as AccountLimitExample;
    else if (named.length === 0 && media?.schema) declared.ownBodies.set(status, media);
    add(named);
    delete responses[key];
  }
  return declared;
}

/**
 * Every error an operation can answer, from its route's rules, each concern saying what it answers: the edge
 * (refusals before routing, outages), the input checks, the access rule, the rate limits; plus the answers its
 * handler declares. Each status is a `$ref` to the one shared response with exactly its codes; what a handler
 * says about its own answers goes into the operation's description, so that the responses stay shared.
 */
function describeOperation(
  problems: string[],
  shared: SharedComponents,
  path: string,
  method: string,
  operation: OperationObject,
  route: RouteRules,
): void {
  const id = operation.operationId!;
  const responses = operation.responses as Responses;
  const byStatus = new Map<number, Set<ErrorCode>>();
  const add = (codes: ErrorCode[]) => {
    for (const code of codes) {
      const status = ERROR_CATALOG[code].status;
      byStatus.set(status, (byStatus.get(status) ?? new Set()).add(code));
    }
  };

  const declared = takeDeclared(problems, id, responses, add);
  const explained = new Map(
    [...declared.responses].flatMap(([status, response]) =>
      response.description ? [[status, response.description] as const] : [],
    ),
  );
  add(EDGE_ERRORS);
  add(inputErrors(method, operation));
  const auth = authAnswers(route.auth);
  add(auth.codes);
  if (auth.public) operation.security = [];
  if (auth.forbidden && !explained.has(403)) explained.set(403, auth.forbidden);
  if (auth.unauthorized) explained.set(401, [explained.get(401), auth.unauthorized].filter(Boolean).join('; '));
  if (route.rateLimited || declared.accountLimit !== false) add([ErrorCode.RateLimitExceed]);
  dropQueryExamples(operation);

  const versioned = path.startsWith('/v1/');
  for (const [status, codeSet] of [...byStatus].sort(([a], [b]) => a - b)) {
    const codes = [...codeSet].sort();
    const own = declared.ownBodies.get(status);
    responses[String(status)] =
      status === 429
        ? shared.rateLimitResponseRef(route.rateLimited, declared.accountLimit, versioned)
        : own
          ? shared.ownBodyResponseRef(status, codes, versioned, id, own)
          : shared.errorResponseRef(status, codes, versioned);
  }
  // A declared answer whose code could not be read (a problem in strict mode) is served as declared.
  for (const [status, response] of declared.responses) {
    if (!byStatus.has(status)) responses[String(status)] = response;
  }

  for (const [key, response] of Object.entries(responses)) {
    const status = Number(key);
    if ('$ref' in response || status >= 400) continue;
    response.headers = { ...shared.headers(status, versioned), ...response.headers };
  }

  if (explained.size > 0) {
    const lines = [...explained]
      .filter(([status]) => byStatus.has(status))
      .sort(([a], [b]) => a - b)
      .map(([status, text]) => `- **${status}**: ${text.replace(/\n+/g, ' ')}`);
    operation.description = [operation.description, '**About its error answers**', lines.join('\n')]
      .filter(Boolean)
      .join('\n\n');
  }
}

function dropUnusedSchemas(document: OpenAPIObject): void {
  const schemas = document.components?.schemas;
  if (!schemas) return;
  for (;;) {
    const text = JSON.stringify({ ...document, components: { ...document.components, schemas: {} } });
    const schemaText = JSON.stringify(schemas);
    const unused = Object.keys(schemas).filter((name) => {
      const ref = `"#/components/schemas/${name}"`;
      return !text.includes(ref) && !schemaText.includes(ref);
    });
    if (unused.length === 0) return;
    for (const name of unused) delete schemas[name];
  }
}

/**
 * Completes the generated document: every operation's error answers (from {@link describeOperation}), security
 * `[]` on public operations, closed request schemas, and unique operation ids. Where a route and its
 * declarations disagree (a declared error that names no code, a code under the wrong status), `strict` throws:
 * `npm run lint:openapi` and the tests build the document strictly, so such a drift fails the run; a running
 * service still serves what it can.
 */
export function completeDocument(
  document: OpenAPIObject,
  rules: Map<string, RouteRules>,
  options: { strict: boolean },
): OpenAPIObject {
  const problems: string[] = [];
  const ids = new Set<string>();
  const shared = new SharedComponents(document);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const route = operation.operationId ? rules.get(operation.operationId) : undefined;
      if (!route) {
        problems.push(`no route rules for ${method.toUpperCase()} ${path} (${operation.operationId})`);
        continue;
      }
      // Test-only controllers may reuse a handler name; the application's own routes come first and keep theirs.
      const id = ids.has(route.operationId) ? route.qualifiedOperationId : route.operationId;
      if (ids.has(id)) problems.push(`operation id ${id} of ${method.toUpperCase()} ${path} is not unique`);
      ids.add(id);
      operation.operationId = id;
      if (operation.summary) operation.summary = plainText(operation.summary);
      describeOperation(problems, shared, path, method, operation, route);
    }
  }
  closeRequestSchemas(document);
  dropUnusedSchemas(document);
  if (problems.length > 0 && options.strict) throw new Error(`OpenAPI document:\n${problems.join('\n')}`);
  return document;
}
