import type {
  ComponentsObject,
  MediaTypeObject,
  HeaderObject,
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger';
import type { AuthRule } from '../auth/auth.decorator';
import { ERROR_CATALOG, isErrorCode } from '../common/errors/error-catalog';
import { ErrorCode } from '../common/errors/error-codes';
import { takesBody } from '../common/http/body-methods';

/** What a route declares that decides its error answers (read from the metadata the guards read). */
export interface RouteRules {
  /** The readable operation id (`listProducts`), and the one used when two routes would share it. */
  operationId: string;
  qualifiedOperationId: string;
  auth: AuthRule | undefined;
  rateLimited: boolean;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** What any request can meet, whatever its route: refusals before routing, an outage, the unexpected. */
const EVERY_OPERATION: ErrorCode[] = [
  ErrorCode.BadRequest,
  ErrorCode.UriTooLong,
  ErrorCode.HeadersTooLarge,
  ErrorCode.Internal,
  ErrorCode.ServiceUnavailable,
  // The auth guard refuses a query-string credential on public routes too.
  ErrorCode.JwtQueryNotAllowed,
  // The input-sanity layer checks every path, query and body value of every route (NUL, unpaired surrogates,
  // nesting depth), whether or not the route declares parameters.
  ErrorCode.Validation,
];

/**
 * Statuses some of whose answers are decided before routing (malformed HTTP, 414, 431, 503 while shutting
 * down): those answers cannot carry the route's rate-limit headers, so the headers are not required there.
 */
const MAY_BE_DECIDED_BEFORE_ROUTING = new Set([400, 414, 431, 503]);

const RATE_LIMIT_HEADERS: Record<string, HeaderObject> = {
  'X-Rate-Limit-Limit': {
    description:
      "Capacity of this counter's leaky bucket: requests admitted at once; it drains as many per 3 seconds " +
      '(GET 30: one more every 100 ms)',
    schema: { type: 'integer', minimum: 1, example: 30 },
  },
  'X-Rate-Limit-Remaining': {
    description: 'How many more requests the bucket would admit at once right after this one (0 when full)',
    schema: { type: 'integer', minimum: 0, example: 29 },
  },
  'X-Rate-Limit-Identifier': {
    description:
      'The counter: `{ip}|{METHOD}|{controller}|{token hash}`; the hash is the first 16 hex characters of the ' +
      'SHA-256 of the Authorization header, or `-` without a valid credential',
    schema: { type: 'string', example: '203.0.113.7|GET|products|9f86d081884c7d65' },
  },
};

const REQUEST_ID_HEADER: HeaderObject = {
  description: "The request id (the caller's own X-Request-Id when it looks like one); the 500 `correlation_id`",
  schema: { type: 'string' },
};

const RETRY_AFTER_HEADER: HeaderObject = {
  required: true,
  description:
    'Whole seconds, rounded up, until the next request fits (at least 1): for the request rate limit the time ' +
    'one request takes to drain from the full bucket (1 s with the default limits), for a company switch 6 s, ' +
    'for a locked e-mail the rest of its 15 minutes',
  schema: { type: 'integer', minimum: 1, example: 1 },
};

const GENERAL_RATE_LIMIT_BODY: SchemaObject = {
  type: 'array',
  description: 'The general request rate limit: exactly `["error_rate_limit_exceed"]`',
  items: { type: 'string', enum: [ErrorCode.RateLimitExceed] },
  minItems: 1,
  maxItems: 1,
};

const ACCOUNT_RATE_LIMIT_BODY: SchemaObject = {
  type: 'object',
  description:
    'A per-account limit: failed logins for one e-mail (10 within 15 minutes lock it until they pass), company ' +
    'switches per employee (a leaky bucket of 10 draining one every 6 seconds)',
  required: ['error', 'message'],
  additionalProperties: false,
  properties: {
    error: { type: 'array', items: { type: 'string', enum: [ErrorCode.RateLimitExceed] }, minItems: 1, maxItems: 1 },
    message: { type: 'string' },
  },
};

const FIELD_ERRORS: SchemaObject = {
  type: 'array',
  description: 'One entry per problem (error_validation only)',
  items: {
    type: 'object',
    required: ['field', 'message'],
    additionalProperties: false,
    properties: {
      field: {
        type: 'string',
        example: 'company_id',
        description: 'Dotted path of the field, e.g. `lines.0.quantity`',
      },
      message: { type: 'string', example: 'company_id must be an integer number' },
    },
  },
};

function errorBodySchema(status: number, codes: ErrorCode[]): SchemaObject {
  const properties: Record<string, SchemaObject> = {
    error: {
      type: 'array',
      description: 'Exactly one error code',
      items: { type: 'string', enum: codes },
      minItems: 1,
      maxItems: 1,
    },
    message: { type: 'string', description: 'One human sentence' },
  };
  if (codes.includes(ErrorCode.Validation)) properties.details = FIELD_ERRORS;
  if (status === 500) {
    properties.correlation_id = { type: 'string', description: 'Equals the X-Request-Id response header' };
  }
  return {
    type: 'object',
    required: status === 500 ? ['error', 'message', 'correlation_id'] : ['error', 'message'],
    additionalProperties: false,
    properties,
  };
}

function exampleBody(code: ErrorCode): Record<string, unknown> {
  const entry = ERROR_CATALOG[code];
  return {
    error: [code],
    message: entry.example,
    ...(entry.details ? { details: entry.details } : {}),
    ...(code === ErrorCode.Internal ? { correlation_id: '5f0c2d1e-8a4b-4c1d-9e2f-3a4b5c6d7e8f' } : {}),
  };
}

type Responses = Record<string, ResponseObject | ReferenceObject>;

/**
 * The codes a declared response names (`'error_not_found: no product ...'`); a typo fails the build of the
 * document. A declared response that names none must bring a body of its own (e.g. the health report's 503).
 */
function codesNamedIn(
  problems: string[],
  operationId: string,
  status: number,
  description: string,
  hasBody: boolean,
): ErrorCode[] {
  const named = [...new Set(description.match(/\berror_[a-z_]+/g) ?? [])].filter((code) => {
    if (!isErrorCode(code)) {
      problems.push(`${operationId} ${status} names an unknown error code ${code}`);
      return false;
    }
    if (ERROR_CATALOG[code].status !== status) {
      problems.push(
        `${operationId} documents ${code} under ${status}, but it is answered with ${ERROR_CATALOG[code].status}`,
      );
      return false;
    }
    return true;
  });
  if (named.length === 0 && status !== 429 && !hasBody) {
    problems.push(`${operationId} declares a ${status} answer without naming its error code`);
  }
  return named as ErrorCode[];
}

/**
 * Every error an operation can answer, from its route's rules: the pre-routing refusals, body and query
 * validation, path ids (404), its access rule, its rate limits; plus the answers its handler declares with
 * `@Api…Response({ description: 'error_code: …' })`. Each status gets the one error body with exactly its
 * codes and a real example per code.
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
  const add = (...codes: ErrorCode[]) => {
    for (const code of codes) {
      const status = ERROR_CATALOG[code].status;
      byStatus.set(status, (byStatus.get(status) ?? new Set()).add(code));
    }
  };

  // Answers the handler declares itself; their descriptions are kept.
  const declared = new Map<number, ResponseObject>();
  // Bodies of the handler's own for an error status (the health report's 503), instead of the error body.
  const ownBodies = new Map<number, MediaTypeObject | undefined>();
  for (const [key, response] of Object.entries(responses)) {
    const status = Number(key);
    if (!(status >= 400) || '$ref' in response) continue;
    declared.set(status, response);
    const named = codesNamedIn(problems, id, status, response.description ?? '', response.content !== undefined);
    if (named.length === 0 && status !== 429) ownBodies.set(status, response.content?.['application/json']);
    add(...named);
    delete responses[key];
  }

  const parameters = (operation.parameters ?? []) as ParameterObject[];
  add(...EVERY_OPERATION);
  if (takesBody(method)) add(ErrorCode.Validation, ErrorCode.PayloadTooLarge, ErrorCode.UnsupportedMediaType);
  if (operation.requestBody || parameters.some((parameter) => parameter.in === 'query')) add(ErrorCode.Validation);
  // Ids in the path name company records: a malformed id or another company's record is "not found".
  if (parameters.some((parameter) => parameter.in === 'path')) add(ErrorCode.NotFound);

  const auth = route.auth;
  if (auth && !auth.public && (auth.permission || auth.jwtOnly) && !declared.has(403)) {
    const needs = [
      auth.jwtOnly ? 'a login token (JWT), not an API key' : 'a JWT or an API key',
      auth.permission ? `with the permission \`${auth.permission}\`` : '',
    ];
    declared.set(403, { description: `This operation needs ${needs.filter(Boolean).join(' ')}.` });
  }
  if (!auth) {
    add(ErrorCode.PermissionDenied); // the guard refuses a route that declares no rule (fail closed)
  } else if (auth.public) {
    operation.security = [];
  } else {
    add(ErrorCode.JwtIsRequired, ErrorCode.JwtHashNotFound, ErrorCode.JwtBlacklisted, ErrorCode.JwtExpired);
    if (auth.permission || auth.jwtOnly) add(ErrorCode.PermissionDenied);
  }
  const accountLimited = declared.has(429);
  if (route.rateLimited || accountLimited) add(ErrorCode.RateLimitExceed);

  // Query parameters are never pre-filled in "Try it out": an example value there would filter records out.
  for (const parameter of parameters) {
    if (parameter.in !== 'query') continue;
    delete parameter.example;
    delete parameter.examples;
    if (parameter.schema && !('$ref' in parameter.schema)) delete parameter.schema.example;
  }

  const versioned = path.startsWith('/v1/');
  for (const [status, codeSet] of [...byStatus].sort(([a], [b]) => a - b)) {
    const codes = [...codeSet].sort();
    const declaredResponse = declared.get(status);
    const ownBody = ownBodies.get(status);
    if (status !== 429 && !ownBody?.schema) {
      // The common case: one shared response per status and set of codes.
      const explained = declaredResponse?.description;
      if (!explained) {
        responses[String(status)] = { $ref: shared.errorResponseRef(status, codes, versioned) };
        continue;
      }
      const response = shared.errorResponse(status, codes, versioned);
      responses[String(status)] = { ...response, description: `${explained}\n\n${response.description}` };
      continue;
    }
    const lines = codes.map((code) => `- \`${code}\`: ${ERROR_CATALOG[code].when}`);
    const description = [declaredResponse?.description, lines.join('\n')].filter(Boolean).join('\n\n');
    const response =
      status === 429
        ? rateLimitResponse(description, route.rateLimited, accountLimited ? declaredResponse : undefined)
        : {
            description,
            content: {
              'application/json': {
                // A handler's own body for this status (e.g. the health report) is one of the two shapes.
                schema: { oneOf: [ownBody!.schema!, { $ref: shared.errorSchemaRef(status, codes) }] },
                examples: {
                  ...(ownBody!.example !== undefined ? { handler: { value: ownBody!.example } } : {}),
                  ...shared.exampleRefs(codes),
                },
              },
            },
          };
    response.headers = shared.headers(status, versioned);
    responses[String(status)] = response;
  }

  // A declared answer whose code could not be read (a problem in strict mode) is served as declared.
  for (const [status, response] of declared) if (!byStatus.has(status)) responses[String(status)] = response;

  for (const [key, response] of Object.entries(responses)) {
    const status = Number(key);
    if ('$ref' in response || status >= 400) continue;
    response.headers = { ...shared.headers(status, versioned), ...response.headers };
  }
}

/** The pieces many operations share, kept once under `components` and referenced. */
class SharedComponents {
  private readonly components: ComponentsObject;

  constructor(document: OpenAPIObject) {
    this.components = document.components ??= {};
  }

  private put<T>(section: 'schemas' | 'responses' | 'headers' | 'examples', name: string, make: () => T): string {
    const entries = ((this.components as Record<string, Record<string, unknown> | undefined>)[section] ??= {});
    entries[name] ??= make();
    return `#/components/${section}/${name}`;
  }

  headers(status: number, versioned: boolean): Record<string, ReferenceObject> {
    const always = !MAY_BE_DECIDED_BEFORE_ROUTING.has(status);
    const ref = (name: string, header: HeaderObject) => {
      const key = always ? name : `${name}.unless-refused-before-routing`;
      return { $ref: this.put('headers', key, () => ({ ...header, required: always })) };
    };
    return {
      ...(versioned
        ? Object.fromEntries(Object.entries(RATE_LIMIT_HEADERS).map(([name, header]) => [name, ref(name, header)]))
        : {}),
      'X-Request-Id': ref('X-Request-Id', REQUEST_ID_HEADER),
      ...(status === 429
        ? { 'Retry-After': { $ref: this.put('headers', 'Retry-After', () => RETRY_AFTER_HEADER) } }
        : {}),
    };
  }

  exampleRefs(codes: ErrorCode[]): Record<string, ReferenceObject> {
    return Object.fromEntries(
      codes.map((code) => [
        code,
        { $ref: this.put('examples', code, () => ({ summary: ERROR_CATALOG[code].when, value: exampleBody(code) })) },
      ]),
    );
  }

  errorSchemaRef(status: number, codes: ErrorCode[]): string {
    return this.put('schemas', `Error${status}.${nameOf(codes)}`, () => errorBodySchema(status, codes));
  }

  errorResponse(status: number, codes: ErrorCode[], versioned: boolean): ResponseObject {
    return {
      description: codes.map((code) => `- \`${code}\`: ${ERROR_CATALOG[code].when}`).join('\n'),
      headers: this.headers(status, versioned),
      content: {
        'application/json': { schema: { $ref: this.errorSchemaRef(status, codes) }, examples: this.exampleRefs(codes) },
      },
    };
  }

  errorResponseRef(status: number, codes: ErrorCode[], versioned: boolean): string {
    const name = `${status}.${nameOf(codes)}${versioned ? '' : '.unversioned'}`;
    return this.put('responses', name, () => this.errorResponse(status, codes, versioned));
  }
}

const nameOf = (codes: ErrorCode[]) => codes.map((code) => code.replace(/^error_/, '')).join('.');

function rateLimitResponse(description: string, general: boolean, account: ResponseObject | undefined): ResponseObject {
  const accountExample = account?.content?.['application/json']?.example ?? {
    error: [ErrorCode.RateLimitExceed],
    message: 'Too many attempts; try again later.',
  };
  const schemas = [...(general ? [GENERAL_RATE_LIMIT_BODY] : []), ...(account ? [ACCOUNT_RATE_LIMIT_BODY] : [])];
  return {
    description,
    content: {
      'application/json': {
        schema: schemas.length === 1 ? schemas[0] : { oneOf: schemas },
        examples: {
          ...(general
            ? { request_rate_limit: { summary: 'The request rate limit', value: [ErrorCode.RateLimitExceed] } }
            : {}),
          ...(account ? { account_limit: { summary: 'A per-account limit', value: accountExample } } : {}),
        },
      },
    },
  };
}

/** Request bodies refuse unknown fields (the validation pipe's forbidNonWhitelisted): say so in their schemas. */
function closeRequestSchemas(document: OpenAPIObject): void {
  const schemas = document.components?.schemas ?? {};
  const closed = new Set<string>();
  const close = (schema: SchemaObject | ReferenceObject | undefined): void => {
    if (!schema) return;
    if ('$ref' in schema) {
      const name = schema.$ref.replace('#/components/schemas/', '');
      if (closed.has(name)) return;
      closed.add(name);
      return close(schemas[name]);
    }
    if (schema.type === 'object' || schema.properties) {
      schema.additionalProperties = false;
      for (const property of Object.values(schema.properties ?? {})) close(property);
    }
    if (schema.items) close(schema.items);
    for (const part of [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])]) close(part);
  };
  for (const item of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const body = item[method]?.requestBody;
      if (body && !('$ref' in body)) close(body.content['application/json']?.schema);
    }
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
      describeOperation(problems, shared, path, method, operation, route);
    }
  }
  closeRequestSchemas(document);
  dropUnusedSchemas(document);
  if (problems.length > 0 && options.strict) throw new Error(`OpenAPI document:\n${problems.join('\n')}`);
  return document;
}
