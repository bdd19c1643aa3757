import * as fc from 'fast-check';

/** The parts of the served OpenAPI document the fuzzer reads. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, Schema> };
}

interface OpenApiOperation {
  parameters?: Array<{ name: string; in: string; schema?: Schema }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  security?: unknown[];
}

export interface Schema {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
}

/** One route of the document: what the fuzzer needs to build requests for it. */
export interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  query: Array<{ name: string; schema: Schema }>;
  jsonBody?: Schema;
  multipart: boolean;
  secured: boolean;
}

export function operationsOf(doc: OpenApiDocument): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue;
      const params = op.parameters ?? [];
      const content = op.requestBody?.content ?? {};
      out.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        jsonBody: content['application/json']?.schema,
        multipart: 'multipart/form-data' in content,
        secured: (op.security ?? []).length > 0,
      });
    }
  }
  return out;
}

/** What the fuzzer knows to send now and then, so some requests get past validation and authentication. */
export interface FuzzContext {
  doc: OpenApiDocument;
  /** A valid JWT / API key, read when the request is sent (they are renewed when a request revokes them). */
  credential: { jwt: () => string; apiKey: () => string };
  /** An account the fuzzer may log in to (its e-mail and password, sometimes sent right). */
  loginTarget: { email: string; password: string; companyId: number };
}

export interface FuzzRequest {
  method: string;
  /** The route template, for the report. */
  route: string;
  path: string;
  headers: Record<string, string>;
  /** A body sent as is; `huge` streams that many bytes instead (413 expected). */
  body?: string;
  huge?: { bytes: number; chunked: boolean };
  /** Which credential it carries, so a revoked one can be renewed. */
  credential: 'jwt' | 'api_key' | 'none' | 'junk';
}

/** encodeURIComponent throws on a lone surrogate; raw ones go in as `%ED%A0%80` elsewhere. */
const wellFormed = (s: string) =>
  s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  'tail\ud83d',
  '\ufeff\u202e',
  '😀',
  "'; DROP TABLE employee;--",
  '../../etc/passwd',
  '__proto__',
  'constructor',
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '%00',
  '%',
  'null',
  '-1',
  '1e309',
  'NaN',
  '0x10',
  '*',
  'users:write',
];

const nastyString = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
    { weight: 3, arbitrary: fc.string({ maxLength: 30 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }) },
    { weight: 1, arbitrary: fc.integer({ min: 300, max: 3_000 }).map((n) => 'x'.repeat(n)) },
    { weight: 1, arbitrary: fc.constantFrom('x'.repeat(20_000), '\u0000'.repeat(5_000), '\ud800'.repeat(2_000)) },
  );

/** JSON nested `levels` deep, as text (a generated object that deep would cost the generator a stack). */
const deepJson = (levels: number, open = '[', close = ']') => open.repeat(levels) + close.repeat(levels);

const anyJson = (): fc.Arbitrary<unknown> =>
  fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      nastyString(),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(nastyString(), tie('value'), { maxKeys: 4 }),
    ),
  })).value;

/** Ids that may name a row, and every shape that cannot. */
const oddId = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 1, max: 8 }).map(String) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '0',
        '-1',
        '1e3',
        '007',
        '2147483648',
        '99999999999999999999999',
        '7'.repeat(101),
        '%00',
        '%ED%A0%80',
        '%zz',
        'abc',
        '1.5',
        '%20',
        '00000000-0000-0000-0000-000000000000',
        '..',
      ),
    },
    { weight: 2, arbitrary: fc.uuid().map(String) },
    { weight: 2, arbitrary: nastyString().map((s) => encodeURIComponent(wellFormed(s))) },
  );

function resolve(doc: OpenApiDocument, schema: Schema | undefined): Schema {
  let current = schema ?? {};
  for (let hops = 0; current.$ref && hops < 10; hops++) {
    current = doc.components?.schemas?.[current.$ref.replace('#/components/schemas/', '')] ?? {};
  }
  if (current.allOf?.length) return resolve(doc, current.allOf[0]);
  return current;
}

/** A URL that never leads off the machine: the resolver of the fuzzed app answers loopback for every name. */
const safeUrl = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(
      'http://127.0.0.1:1/a.png',
      'http://[::1]/x',
      'http://10.0.0.1/i.png',
      'http://169.254.169.254/latest/meta-data',
      'http://fuzz.invalid/p.png',
      'file:///etc/passwd',
      'gopher://127.0.0.1/',
      'http://user:pass@127.0.0.1/',
      'javascript:alert(1)',
      'http://',
      '//x',
    ),
    nastyString().filter((s) => !s.includes(':')),
  );

/** A value for `schema`: mostly a plausible one, sometimes the wrong type or a hostile string. */
function valueFor(
  doc: OpenApiDocument,
  schemaOrRef: Schema | undefined,
  name: string,
  depth: number,
  ctx: FuzzContext,
): fc.Arbitrary<unknown> {
  const schema = resolve(doc, schemaOrRef);
  const wrong = anyJson();
  let right: fc.Arbitrary<unknown>;
  if (name === 'url') right = safeUrl();
  else if (schema.enum?.length) right = fc.constantFrom(...schema.enum);
  else if (name === 'email')
    right = fc.constantFrom(ctx.loginTarget.email, 'nobody@example.test', 'a@b', 'x\u0000@y.io');
  else if (name === 'password') right = fc.oneof(fc.constant(ctx.loginTarget.password), nastyString());
  else if (name === 'company_id') right = fc.oneof(fc.constant(ctx.loginTarget.companyId), fc.integer());
  else if (schema.type === 'integer' || schema.type === 'number')
    right = fc.oneof(
      fc.integer({ min: schema.minimum ?? -5, max: Math.min(schema.maximum ?? 1000, 1000) }),
      fc.integer(),
    );
  else if (schema.type === 'boolean') right = fc.boolean();
  else if (schema.type === 'array')
    right = depth > 4 ? fc.constant([]) : fc.array(valueFor(doc, schema.items, name, depth + 1, ctx), { maxLength: 4 });
  else if (schema.type === 'object' || schema.properties)
    right = depth > 4 ? fc.constant({}) : objectFor(doc, schema, depth + 1, ctx);
  else right = fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), nastyString());
  return fc.oneof({ weight: 4, arbitrary: right }, { weight: 1, arbitrary: wrong });
}

function objectFor(
  doc: OpenApiDocument,
  schema: Schema,
  depth: number,
  ctx: FuzzContext,
): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(schema.properties ?? {});
  const fields = entries.map(([key, property]) =>
    fc
      .option(valueFor(doc, property, key, depth, ctx), { freq: 6, nil: undefined })
      .map((value) => [key, value] as const),
  );
  return fc
    .tuple(
      fc.tuple(...fields),
      fc.oneof(
        { weight: 4, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.tuple(nastyString(), anyJson()) },
      ),
    )
    .map(([pairs, extra]) => {
      const out: Record<string, unknown> = {};
      for (const [key, value] of pairs) if (value !== undefined) out[key] = value;
      if (extra) out[extra[0]] = extra[1];
      return out;
    });
}

const junkAuthorization = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(
      'Bearer abc',
      'bearer eyJhbGciOiJub25lIn0.e30.',
      'ak_1:2',
      ':',
      'key:',
      'eyJ.eyJ.sig',
      'null',
      'x'.repeat(8000),
    ),
    fc.string({ minLength: 1, maxLength: 60 }).map((s) => s.replace(/[^\x20-\x7e]/g, 'a')),
    fc.tuple(fc.uuid(), fc.uuid()).map(([a, b]) => `ak_${a}:${b}`),
  );

const contentTypes = fc.constantFrom(
  'application/json',
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=zz',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  '',
);

/** One request to one operation of the document. */
export function requestFor(op: Operation, ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const pathArb = fc
    .tuple(...op.pathParams.map(() => oddId()))
    .map((ids) => op.pathParams.reduce((path, name, i) => path.replace(`{${name}}`, ids[i]), op.path));
  const queryArb = fc
    .tuple(
      fc.tuple(
        ...op.query.map((q) =>
          fc.option(
            fc.oneof(
              valueFor(ctx.doc, q.schema, q.name, 0, ctx).map((v) =>
                typeof v === 'string' ? v : (JSON.stringify(v) ?? ''),
              ),
              nastyString(),
            ),
            { freq: 2, nil: undefined },
          ),
        ),
      ),
      fc.oneof(
        { weight: 5, arbitrary: fc.constant(undefined) },
        {
          weight: 1,
          arbitrary: fc.tuple(
            fc.constantFrom('__jwtAuthorization', 'page[]', 'x', 'name', '%00', 'per_page'),
            nastyString(),
          ),
        },
      ),
    )
    .map(([values, extra]) => {
      const pairs: string[] = [];
      op.query.forEach((q, i) => {
        if (values[i] !== undefined) pairs.push(`${q.name}=${encodeURIComponent(wellFormed(String(values[i])))}`);
      });
      if (extra) pairs.push(`${encodeURIComponent(extra[0])}=${encodeURIComponent(wellFormed(extra[1]))}`);
      // Percent-encoded NUL and a lone surrogate's UTF-8 bytes, which encodeURIComponent cannot write.
      return pairs.join('&');
    });
  const rawQueryExtra = fc.constantFrom('', '', '', '&name=%00', '&name=%ED%A0%80', '&page=1&page=2', '&per_page=%FF');
  const bodyArb: fc.Arbitrary<string | undefined> = op.jsonBody
    ? fc.oneof(
        {
          weight: 8,
          arbitrary: objectFor(ctx.doc, resolve(ctx.doc, op.jsonBody), 0, ctx).map((v) => JSON.stringify(v)),
        },
        { weight: 2, arbitrary: anyJson().map((v) => JSON.stringify(v) ?? 'null') },
        { weight: 1, arbitrary: fc.integer({ min: 33, max: 3_000 }).map((n) => `{"email":${deepJson(n)}}`) },
        {
          weight: 1,
          arbitrary: fc
            .integer({ min: 33, max: 3_000 })
            .map((n) => deepJson(n, '{"a":', '}').replace(/\{"a":\}/, '{"a":1}')),
        },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            '{"a":',
            '{"email":"x"',
            "{'a':1}",
            '[1,2',
            '\u0000',
            '{"__proto__":{"x":1}}',
            '{"constructor":{"prototype":{}}}',
            '',
          ),
        },
      )
    : fc.option(fc.constantFrom('{}', '{"x":1}', 'garbage', '[]'), { freq: 4, nil: undefined });
  const credentialArb = fc.constantFrom<FuzzRequest['credential']>('jwt', 'jwt', 'api_key', 'none', 'junk');
  // About one request in 150 streams a body over the 1 MiB limit (2 MiB, or just over 1 MiB), half of them chunked.
  const hugeArb = fc.oneof(
    { weight: 149, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.record({
        bytes: fc.constantFrom(2 * 1024 * 1024, 2 * 1024 * 1024 + 1, 1024 * 1024 + 1),
        chunked: fc.boolean(),
      }),
    },
  );
  const oddHeaders = fc.record(
    {
      'x-request-id': fc.oneof(fc.constantFrom('trace-0123456789', 'bad id <x>', 'a'.repeat(300)), fc.uuid()),
      'x-forwarded-for': fc.constantFrom('1.2.3.4', 'garbage', '::1, 10.0.0.1', ''),
      accept: fc.constantFrom('*/*', 'text/html', 'application/xml', 'application/json;q=0'),
      'accept-encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', 'zstd'),
      'content-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown'),
    },
    { requiredKeys: [] },
  );
  return fc
    .record({
      path: pathArb,
      query: queryArb,
      rawQuery: rawQueryExtra,
      body: bodyArb,
      contentType: contentTypes,
      credential: credentialArb,
      junk: junkAuthorization(),
      huge: hugeArb,
      odd: oddHeaders,
    })
    .map(({ path, query, rawQuery, body, contentType, credential, junk, huge, odd }) => {
      const headers: Record<string, string> = { ...odd };
      if (credential === 'jwt') headers.authorization = ctx.credential.jwt();
      if (credential === 'api_key') headers.authorization = ctx.credential.apiKey();
      if (credential === 'junk') headers.authorization = junk;
      const queryString = `${query}${rawQuery}`.replace(/^&/, '');
      const request: FuzzRequest = {
        method: op.method,
        route: `${op.method} ${op.path}`,
        path: queryString ? `${path}?${queryString}` : path,
        headers,
        credential,
      };
      if (op.method !== 'GET' && op.method !== 'DELETE') {
        if (huge) request.huge = huge;
        else if (body !== undefined) request.body = body;
        if (request.body !== undefined || huge)
          headers['content-type'] = op.multipart
            ? 'multipart/form-data; boundary=zz'
            : contentType || 'application/json';
        if (!headers['content-type']) delete headers['content-type'];
      }
      return request;
    });
}

/** Requests over every operation of the document, the same for the same seed. */
export function requestsArbitrary(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(...operationsOf(ctx.doc).map((op) => requestFor(op, ctx)));
}

/** Why an answer is not in the contract's error shape, or null when it is. */
export function shapeProblem(status: number, text: string): string | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'the body is not JSON';
  }
  if (status === 429 && Array.isArray(body)) {
    return body.length === 1 && body[0] === 'error_rate_limit_exceed' ? null : 'a 429 array body other than the source';
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'the body is not an object';
  const { error, message, details, ...rest } = body as Record<string, unknown>;
  if (
    !Array.isArray(error) ||
    error.length !== 1 ||
    typeof error[0] !== 'string' ||
    !/^error_[a-z_]+$/.test(error[0])
  ) {
    return 'error is not ["error_<code>"]';
  }
  if (typeof message !== 'string' || message === '') return 'message is not a sentence';
  if (details !== undefined) {
    if (!Array.isArray(details)) return 'details is not an array';
    for (const d of details as Array<Record<string, unknown>>) {
      if (typeof d?.field !== 'string' || typeof d?.message !== 'string') return 'a detail is not {field, message}';
    }
  }
  if (Object.keys(rest).length > 0) return `unexpected keys ${Object.keys(rest).join(',')}`;
  return null;
}
