import type {
  ComponentsObject,
  HeaderObject,
  MediaTypeObject,
  OpenAPIObject,
  ReferenceObject,
  ResponseObject,
} from '@nestjs/swagger';
import { ERROR_CATALOG } from '../../platform/common/errors/error-catalog';
import type { ErrorCode } from '../../platform/common/errors/error-codes';
import { codeLines, errorBodySchema, exampleBody } from '../../platform/common/errors/error-openapi';
import {
  type AccountLimitExample,
  RATE_LIMIT_HEADERS,
  rateLimitResponse,
  RETRY_AFTER_HEADER,
} from '../../rate-limiting/limiter/rate-limit-openapi';
import { MAY_BE_DECIDED_BEFORE_ROUTING, REQUEST_ID_HEADER } from './edge-errors-openapi';

/**
 * A summary is plain text (OpenAPI: a short description, no Markdown): Swagger UI shows it in a drop-down or a
 * heading as written, so the backticks of the catalogue's Markdown would show.
 */
/** operations/shedding: a request shed while the instance is saturated says when to try again. */
const SHED_RETRY_AFTER_HEADER: HeaderObject = {
  description: 'Only when the instance was saturated and shed the request: whole seconds to wait before retrying.',
  required: false,
  schema: { type: 'integer', minimum: 1 },
};

export const plainText = (markdown: string) => markdown.replace(/`/g, '');

const nameOf = (codes: ErrorCode[]) => codes.map((code) => code.replace(/^error_/, '')).join('.');

/** `Too many company switches; try again later.` → `too-many-company-switches-try-again-later` */
const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/**
 * The pieces many operations share, kept once under `components` and referenced: every error answer is a
 * `$ref` to `components/responses`, its headers to `components/headers`, its examples to `components/examples`.
 */
export class SharedComponents {
  private readonly components: ComponentsObject;

  constructor(document: OpenAPIObject) {
    this.components = document.components ??= {};
  }

  private put<T>(section: 'schemas' | 'responses' | 'headers' | 'examples', name: string, make: () => T): string {
    const entries = ((this.components as Record<string, Record<string, unknown> | undefined>)[section] ??= {});
    entries[name] ??= make();
    return `#/components/${section}/${name}`;
  }

  /**
   * The headers of every answer: X-Request-Id, the X-Rate-Limit-* ones on `/v1`, Retry-After on a 429 (and on a
   * 503 of a shed request).
   */
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
      ...(status === 503
        ? { 'Retry-After': { $ref: this.put('headers', 'Retry-After.when-shed', () => SHED_RETRY_AFTER_HEADER) } }
        : {}),
    };
  }

  private exampleRefs(codes: ErrorCode[]): Record<string, ReferenceObject> {
    return Object.fromEntries(
      codes.map((code) => [
        code,
        {
          $ref: this.put('examples', code, () => ({
            summary: plainText(ERROR_CATALOG[code].when),
            value: exampleBody(code),
          })),
        },
      ]),
    );
  }

  private errorSchemaRef(status: number, codes: ErrorCode[]): string {
    return this.put('schemas', `Error${status}.${nameOf(codes)}`, () => errorBodySchema(status, codes));
  }

  /** The error body of a status with exactly these codes, an example per code. */
  errorResponseRef(status: number, codes: ErrorCode[], versioned: boolean): ReferenceObject {
    const name = `${status}.${nameOf(codes)}${versioned ? '' : '.unversioned'}`;
    return {
      $ref: this.put('responses', name, () => ({
        description: codeLines(codes),
        headers: this.headers(status, versioned),
        content: {
          'application/json': {
            schema: { $ref: this.errorSchemaRef(status, codes) },
            examples: this.exampleRefs(codes),
          },
        },
      })),
    };
  }

  /** A status whose answer is the handler's own body (the health report's 503) or the error body. */
  ownBodyResponseRef(
    status: number,
    codes: ErrorCode[],
    versioned: boolean,
    operationId: string,
    own: MediaTypeObject,
  ): ReferenceObject {
    const name = `${status}.${nameOf(codes)}.${operationId}${versioned ? '' : '.unversioned'}`;
    return {
      $ref: this.put('responses', name, () => ({
        description: codeLines(codes),
        headers: this.headers(status, versioned),
        content: {
          'application/json': {
            schema: { oneOf: [own.schema!, { $ref: this.errorSchemaRef(status, codes) }] },
            examples: {
              ...(own.example !== undefined ? { handler: { value: own.example } } : {}),
              ...this.exampleRefs(codes),
            },
          },
        },
      })),
    };
  }

  /** The 429 of the general limit, of a per-account limit (with the route's example body), or of both. */
  rateLimitResponseRef(general: boolean, account: false | AccountLimitExample, versioned: boolean): ReferenceObject {
    const accountName = account === false ? '' : `.account${account ? `-${slug(String(account.message))}` : ''}`;
    const name = `429.${general ? 'rate_limit_exceed' : 'account_only'}${accountName}${versioned ? '' : '.unversioned'}`;
    return {
      $ref: this.put('responses', name, (): ResponseObject => ({
        ...rateLimitResponse(general, account),
        headers: this.headers(429, versioned),
      })),
    };
  }
}
