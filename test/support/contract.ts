import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ERROR_CATALOG, isErrorCode } from '../../src/platform/common/errors/error-catalog';

type Json = Record<string, any>;

/** What the contract check needs of a response (supertest's response has all of it). */
export interface ObservedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  text?: string;
}

/** Paths served outside the API document: Swagger UI and the document itself, the admin page. */
// /scim: SCIM 2.0 describes itself (its /Schemas and /ResourceTypes) and answers in its own media type and error
// schema; the OpenAPI document leaves it out on purpose (src/staff/scim/scim-users.controller.ts).
const OUTSIDE_DOCUMENT = /^\/(docs|admin|scim)(\/|$|\?)/;

/** Answers that may arrive without the route's headers: decided before routing (docs/contract.md). */
const BEFORE_ROUTING = new Set(['error_bad_request', 'error_uri_too_long', 'error_headers_too_large']);

interface Operation {
  id: string;
  responses: Json;
}

interface PathMatcher {
  pattern: RegExp;
  literal: boolean;
  item: Json;
}

/**
 * Holds every answer of the end-to-end suites against the OpenAPI document the app serves: the status must be
 * one the operation lists, the body must match that response's schema (with no field the schema does not
 * name), and the headers the response declares as required must be present. An answer for a path the
 * document does not have must be the 404 error body.
 */
export class ContractChecker {
  private readonly ajv: Ajv;
  private readonly paths: PathMatcher[];
  private readonly validators = new Map<string, ValidateFunction>();

  private constructor(private readonly document: Json) {
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addFormat('password', true);
    this.ajv.addFormat('binary', true);
    this.ajv.addSchema({ $id: 'openapi', components: closeObjects(document.components ?? {}) });
    this.paths = Object.entries(document.paths as Json)
      .map(([path, item]) => ({
        pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
        literal: !path.includes('{'),
        item: item as Json,
      }))
      // A literal path wins over a template (`/v1/users/me` before `/v1/users/{id}`).
      .sort((a, b) => Number(b.literal) - Number(a.literal));
  }

  private static readonly cache = new Map<string, ContractChecker>();

  static for(documentText: string): ContractChecker {
    let checker = ContractChecker.cache.get(documentText);
    if (!checker) {
      checker = new ContractChecker(JSON.parse(documentText));
      ContractChecker.cache.set(documentText, checker);
    }
    return checker;
  }

  /** Every way this answer breaks the document; empty when it keeps to it. */
  problems(method: string, url: string, res: ObservedResponse): string[] {
    const path = new URL(url, 'http://x').pathname;
    if (OUTSIDE_DOCUMENT.test(path)) return [];
    const operation = this.operationOf(method, path);
    const what = `${method.toUpperCase()} ${path} → ${res.status}`;
    if (!operation) return this.undocumentedRoute(method, what, res);

    const declared = operation.responses[String(res.status)] ?? operation.responses.default;
    if (!declared) {
      return [`${what}: status ${res.status} is not in the document for ${operation.id} (${summary(res)})`];
    }
    const response = this.resolve(declared);
    const problems: string[] = [];
    const code = errorCodeOf(res.body);
    for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
      const resolved = this.resolve(header);
      const value = res.headers[name.toLowerCase()];
      // Headers the document marks optional only because of pre-routing answers: every other answer has them.
      const expected =
        resolved.required === true || (code !== undefined && !BEFORE_ROUTING.has(code) && isRouted(name));
      if (value === undefined) {
        if (expected) problems.push(`${what}: header ${name} missing (${operation.id})`);
        continue;
      }
      if (resolved.schema?.type === 'integer' && !/^\d+$/.test(String(value))) {
        problems.push(`${what}: header ${name} is not an integer: ${String(value)}`);
      }
    }
    if (method.toUpperCase() === 'HEAD' || res.status === 204) return problems;

    const content = response.content as Json | undefined;
    const media = content?.['application/json'];
    if (!media?.schema) return problems;
    const contentType = String(res.headers['content-type'] ?? '');
    if (!contentType.startsWith('application/json')) {
      return [...problems, `${what}: content-type ${contentType || '(none)'} where the document says application/json`];
    }
    const validate = this.validator(`${operation.id} ${res.status}`, media.schema);
    if (!validate(res.body)) {
      problems.push(
        `${what}: body does not match the document for ${operation.id}: ${this.ajv.errorsText(validate.errors)} ` +
          `— body ${JSON.stringify(res.body).slice(0, 300)}`,
      );
    }
    return problems;
  }

  private operationOf(method: string, path: string): Operation | undefined {
    const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    const match = this.paths.find((candidate) => candidate.pattern.test(path) && candidate.item[verb]);
    const operation = match?.item[verb] as Json | undefined;
    return operation ? { id: operation.operationId, responses: operation.responses } : undefined;
  }

  /** No operation: the error body with the status of its code (404 for an unknown route, or a pre-routing refusal). */
  private undocumentedRoute(method: string, what: string, res: ObservedResponse): string[] {
    if (method.toUpperCase() === 'OPTIONS' && res.status === 204) return []; // a CORS preflight
    const code = errorCodeOf(res.body);
    const body = res.body as Json;
    const shaped =
      code !== undefined &&
      ERROR_CATALOG[code].status === res.status &&
      typeof body.message === 'string' &&
      Object.keys(body).every((key) => ['error', 'message', 'details', 'correlation_id'].includes(key));
    return shaped && res.status !== 500
      ? []
      : [`${what}: no operation in the document, and not an error body (${summary(res)})`];
  }

  private resolve(object: Json): Json {
    let current = object;
    while (current && typeof current.$ref === 'string') {
      current = current.$ref
        .replace(/^#\//, '')
        .split('/')
        .reduce((node: Json, key: string) => node?.[key], this.document);
    }
    return current;
  }

  private validator(key: string, schema: Json): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(
        JSON.parse(JSON.stringify(closeObjects(schema)).replaceAll('"#/components/', '"openapi#/components/')),
      );
      this.validators.set(key, validate);
    }
    return validate;
  }
}

const isRouted = (header: string) => /^x-rate-limit-|^ratelimit(-policy)?$|^x-request-id$/i.test(header);

function errorCodeOf(body: unknown): keyof typeof ERROR_CATALOG | undefined {
  const error = Array.isArray(body) ? body : (body as Json | null)?.error;
  const code = Array.isArray(error) && error.length === 1 ? error[0] : undefined;
  return typeof code === 'string' && isErrorCode(code) ? code : undefined;
}

function summary(res: ObservedResponse): string {
  return JSON.stringify(res.body ?? res.text ?? '').slice(0, 200);
}

/**
 * A copy of the schemas in which every object that names its properties allows no others (unless it says what
 * else it allows): a field the service sends but the document does not name is drift too.
 */
function closeObjects<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(closeObjects) as T;
  if (!schema || typeof schema !== 'object') return schema;
  const copy: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    copy[key] = key === 'example' || key === 'examples' || key === 'default' ? value : closeObjects(value);
  }
  if (copy.properties && copy.additionalProperties === undefined && !copy.allOf && !copy.oneOf && !copy.anyOf) {
    copy.additionalProperties = false;
  }
  return copy as T;
}
