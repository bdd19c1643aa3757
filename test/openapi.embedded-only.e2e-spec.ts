import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loginAndReadAProduct } from '../client/example';
import { ContractChecker } from './support/contract';
import { authed, createAccount, createCompanies, login } from './support/fixtures';
import { routeRules } from './support/route-rules';
import { startTestApp, type TestApp } from './support/test-app';

type Json = Record<string, any>;

const ROOT = join(__dirname, '..');

/**
 * The OpenAPI document as a client sees it (the contract test in support/contract.ts holds every e2e answer
 * against it). The document does not depend on the database, so this runs on the embedded one only.
 */
describe('the OpenAPI document', () => {
  let t: TestApp;
  let doc: Json;
  let text: string;
  let dir: string;
  const resolve = (object: Json): Json =>
    object?.$ref
      ? resolve(
          object.$ref
            .slice(2)
            .split('/')
            .reduce((node: Json, key: string) => node[key], doc),
        )
      : object;
  const operations = () =>
    Object.entries(doc.paths as Json).flatMap(([path, item]) =>
      Object.entries(item as Json).map(([method, op]) => ({ path, method, op: op as Json })),
    );
  const op = (method: string, path: string) => doc.paths[path][method] as Json;

  beforeAll(async () => {
    t = await startTestApp();
    const res = await t.http().get('/docs/openapi.json').expect(200);
    text = res.text;
    doc = res.body;
    dir = mkdtempSync(join(tmpdir(), 'openapi-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  it('is the document `npm run lint:openapi` lints (written without a database)', () => {
    const file = join(dir, 'written.json');
    execFileSync(process.execPath, [join(ROOT, 'dist/src/write-openapi.js'), file]);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(doc);
  });

  it('has readable, unique operation ids', () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(
      expect.arrayContaining([
        'authenticateInit',
        'authenticateFinish',
        'refreshToken',
        'getMe',
        'listProducts',
        'getProduct',
        'deleteProduct',
        'revokeApiKey',
        'revokeSession',
      ]),
    );
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z]+$/);
  });

  it('names servers, marks public operations `security: []` and protected ones with the Authorization key', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    for (const { path, method, op: operation } of operations()) {
      const isPublic =
        [
          '/v1/users/authenticateinit',
          '/v1/users/authenticatefinish',
          '/v1/users/refreshtoken',
          '/v1/users/invitations/accept',
          '/v1/users/passwordreset',
          '/v1/sso/start',
          '/v1/sso/callback',
          '/v1/sso/exchange',
          '/v1/sso/backchannel-logout',
          '/v1/users/passkeys/options',
          '/v1/users/passkeys/authenticate',
        ].includes(path) || !path.startsWith('/v1/');
      expect({ at: `${method} ${path}`, security: operation.security }).toEqual({
        at: `${method} ${path}`,
        security: isPublic ? [] : [{ Authorization: [] }],
      });
    }
    // The same, from the other side: the public routes as their decorators declare them (src/app-routes.spec.ts
    // keeps the reviewed table); every other operation documents the Authorization header, and no public one.
    const publicOps = routeRules()
      .filter((rule) => rule.auth?.public)
      .map((rule) => rule.route.replace(/:(\w+)/g, '{$1}'));
    expect(publicOps).toEqual(expect.arrayContaining(['POST /v1/users/authenticatefinish', 'GET /health']));
    for (const { path, method, op: operation } of operations()) {
      const id = `${method.toUpperCase()} ${path}`;
      expect({ op: id, secured: !!operation.security?.length }).toEqual({ op: id, secured: !publicOps.includes(id) });
    }
  });

  it('documents the rate-limit headers on every /v1 response, and the 429 with its array body', () => {
    const v1 = operations().filter(({ path }) => path.startsWith('/v1/'));
    expect(v1.length).toBeGreaterThan(5);
    for (const { path, method, op: operation } of v1) {
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        expect({ at: `${method} ${path} ${status}`, headers: Object.keys(resolve(response).headers ?? {}) }).toEqual({
          at: `${method} ${path} ${status}`,
          headers: expect.arrayContaining(['X-Rate-Limit-Limit', 'X-Rate-Limit-Remaining', 'X-Rate-Limit-Identifier']),
        });
      }
      expect(operation.responses['429']).toBeDefined();
    }
    const generic = resolve(op('get', '/v1/users/me').responses['429']).content['application/json'];
    expect(Object.values(generic.examples).map((example: any) => resolve(example).value)).toEqual([
      ['error_rate_limit_exceed'],
    ]);
  });

  it('documents Cache-Control: no-store on every answer that carries a secret', () => {
    const secretAnswers: Array<[string, string, string]> = [
      ['post', '/v1/users/authenticatefinish', '200'],
      ['post', '/v1/users/refreshtoken', '200'],
      ['post', '/v1/users/changeworkingcompany', '200'],
      ['post', '/v1/apikeys', '201'],
      ['post', '/v1/users/invitations', '201'],
      ['post', '/v1/users/invitations/accept', '200'],
      ['post', '/v1/users/{id}/passwordreset', '201'],
      ['post', '/v1/users/me/mfa/totp', '201'],
    ];
    for (const [method, path, status] of secretAnswers) {
      const header = resolve(resolve(op(method, path).responses[status]).headers['Cache-Control']);
      expect({ at: `${method} ${path}`, schema: header.schema }).toEqual({
        at: `${method} ${path}`,
        schema: { type: 'string', enum: ['no-store'] },
      });
    }
  });

  it('documents the new error codes where they are answered', () => {
    const codes = (method: string, path: string, status: string) =>
      JSON.stringify(resolve(op(method, path).responses[status]));
    expect(codes('post', '/v1/users/authenticatefinish', '401')).toContain('error_otp_required');
    expect(codes('post', '/v1/users/authenticatefinish', '401')).toContain('error_otp_invalid');
    expect(codes('post', '/v1/users/invitations/accept', '400')).toContain('error_invitation_invalid');
    expect(codes('post', '/v1/users/passwordreset', '400')).toContain('error_reset_code_invalid');
  });

  it('lists the answers the issue found missing', () => {
    for (const path of ['/v1/users/authenticateinit', '/v1/users/authenticatefinish', '/v1/users/refreshtoken']) {
      expect(Object.keys(op('post', path).responses)).toEqual(
        expect.arrayContaining(['400', '413', '415', '429', '503']),
      );
    }
    const refresh400 = resolve(op('post', '/v1/users/refreshtoken').responses['400']).content['application/json']
      .schema;
    expect(resolve(refresh400).properties.error.items.enum).toEqual(
      expect.arrayContaining([
        'error_jwt_blacklisted',
        'error_session_max_age',
        'error_jwt_expired',
        'error_validation',
      ]),
    );
    expect(op('delete', '/v1/users/sessions/{id}').responses['404']).toBeDefined();
    expect(op('delete', '/v1/apikeys/{id}').responses['404']).toBeDefined();
    for (const { path, method, op: operation } of operations()) {
      const at = `${method} ${path}`;
      expect({ at, has503: '503' in operation.responses }).toEqual({ at, has503: true });
      if (['post', 'put', 'delete'].includes(method)) {
        expect({ at, statuses: Object.keys(operation.responses) }).toEqual({
          at,
          statuses: expect.arrayContaining(['413', '415']),
        });
      }
    }
  });

  it('documents both 429 bodies where a per-account limit applies, the array form elsewhere, with Retry-After', () => {
    const bodies = (method: string, path: string) => {
      const media = resolve(op(method, path).responses['429']).content['application/json'];
      return {
        schemas: (media.schema.oneOf ?? [media.schema]).map((schema: Json) => schema.type),
        headers: resolve(op(method, path).responses['429']).headers,
      };
    };
    for (const path of [
      '/v1/users/authenticateinit',
      '/v1/users/authenticatefinish',
      '/v1/users/changeworkingcompany',
    ]) {
      expect(bodies('post', path).schemas).toEqual(['array', 'object']);
    }
    expect(bodies('post', '/v1/users/refreshtoken').schemas).toEqual(['array']);
    expect(bodies('get', '/v1/products').schemas).toEqual(['array']);
    expect(resolve(bodies('get', '/v1/products').headers['Retry-After'])).toMatchObject({
      required: true,
      schema: { type: 'integer', minimum: 1 },
    });
    expect(resolve(bodies('get', '/v1/products').headers['X-Rate-Limit-Limit'])).toMatchObject({ required: true });
    // The leaky bucket of docs/contract.md, not a window: Remaining is what fits at once, Retry-After the next slot.
    expect(resolve(bodies('get', '/v1/products').headers['X-Rate-Limit-Remaining']).description).toMatch(/at once/);
    expect(resolve(bodies('get', '/v1/products').headers['Retry-After']).description).toMatch(/next request fits/);
    expect(text).not.toMatch(/3-second window|current window/);
  });

  it('gives every error status a schema of its exact codes and a correct example per code', () => {
    const checker = ContractChecker.for(text);
    let checked = 0;
    for (const { path, method, op: operation } of operations()) {
      for (const [status, declared] of Object.entries(operation.responses as Json)) {
        if (Number(status) < 400) continue;
        const response = resolve(declared);
        const media = response.content['application/json'];
        const examples = Object.entries(media.examples as Json);
        expect(examples.length).toBeGreaterThan(0);
        for (const [name, example] of examples) {
          const value = resolve(example).value;
          if (name.startsWith('error_')) expect(value.error).toEqual([name]);
          const headers = Object.fromEntries(
            Object.keys(response.headers).map((header) => [header.toLowerCase(), '1']),
          );
          const url = path.replace(/\{[^}]+\}/g, '1');
          const res = {
            status: Number(status),
            headers: { ...headers, 'content-type': 'application/json' },
            body: value,
          };
          expect(checker.problems(method, url, res)).toEqual([]);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(300);
    // Not the same error_validation body everywhere: 401 shows the auth codes.
    expect(
      Object.keys(resolve(op('get', '/v1/users/me').responses['401']).content['application/json'].examples).sort(),
    ).toEqual(['error_jwt_hash_not_found', 'error_jwt_is_required', 'error_jwt_query_not_allowed']);
  });

  it('answers every error with a shared response; what a handler says of its answers stays in its description', () => {
    const components = doc.components as Json;
    for (const { path, method, op: operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        if (Number(status) < 400) continue;
        const at = `${method} ${path} ${status}`;
        expect({ at, ref: response.$ref }).toEqual({ at, ref: expect.stringMatching(/^#\/components\/responses\//) });
        for (const header of Object.values(resolve(response).headers as Json)) {
          expect({ at, header: (header as Json).$ref }).toEqual({
            at,
            header: expect.stringMatching(/^#\/components\/headers\//),
          });
        }
      }
    }
    expect(Object.keys(components.responses).length).toBeLessThan(60);
    const getProduct = op('get', '/v1/products/{id}').description as string;
    expect(getProduct).toMatch(
      /\*\*403\*\*: This operation needs a JWT or an API key with the permission `products:read`/,
    );
    expect(getProduct).toMatch(/\*\*404\*\*: error_not_found: no product with this id/);
    expect(op('post', '/v1/users/authenticatefinish').description).toMatch(/\*\*429\*\*: Ten failed logins/);
  });

  // The products and orders suites used to check their part of the document, each on both databases: here, once.
  it('documents products with their DTOs, the 404 and the 409, and orders with theirs and the 404', () => {
    expect(Object.keys(doc.paths['/v1/products']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/v1/products/{id}']).sort()).toEqual(['delete', 'get', 'patch', 'put']);
    // Error answers are shared components; follow the operation's $ref to the one it names.
    const conflicts = (method: string, path: string) =>
      JSON.stringify(resolve(op(method, path).responses['409'] ?? null));
    expect(conflicts('post', '/v1/products')).toContain('error_conflict');
    expect(conflicts('put', '/v1/products/{id}')).toContain('error_conflict');
    expect(conflicts('patch', '/v1/products/{id}')).toContain('error_conflict');
    expect(op('delete', '/v1/products/{id}').responses['409']).toBeUndefined();
    expect(op('get', '/v1/products/{id}').responses['404']).toBeDefined();
    expect(
      op('get', '/v1/products')
        .parameters.map((p: { name: string }) => p.name)
        .sort(),
    ).toEqual(['name', 'page', 'per_page']);
    expect(doc.components.schemas.ProductInputDto.required.sort()).toEqual(['name', 'price', 'sku']);
    expect(doc.components.schemas.ProductPatchDto.required).toBeUndefined();
    expect(Object.keys(doc.components.schemas.ProductPatchDto.properties).sort()).toEqual(['name', 'price', 'sku']);

    expect(Object.keys(doc.paths['/v1/orders']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/v1/orders/{id}']).sort()).toEqual(['get', 'put']);
    expect(op('put', '/v1/orders/{id}').responses['404']).toBeDefined();
    expect(doc.components.schemas.CreateOrderDto.properties.lines).toMatchObject({ minItems: 1, maxItems: 100 });
    expect(doc.components.schemas.OrderDto.required).toEqual(expect.arrayContaining(['total', 'lines', 'status']));
  });

  it('uses integer types, formats and closed request bodies', () => {
    const schemas = doc.components.schemas;
    expect(schemas.LoginDto.properties.company_id).toMatchObject({ type: 'integer', minimum: 1 });
    expect(schemas.ChangeWorkingCompanyDto.properties.company_id).toMatchObject({ type: 'integer', minimum: 1 });
    expect(schemas.LoginDto.additionalProperties).toBe(false);
    expect(schemas.CreateOrderDto.additionalProperties).toBe(false);
    expect(schemas.OrderLineInputDto.additionalProperties).toBe(false);
    expect(schemas.CreateEmployeeDto.properties.email.format).toBe('email');
    expect(schemas.LoginResultDto.properties.expires_at.format).toBe('date-time');
    expect(schemas.LoginResultDto.properties.session_id.format).toBe('uuid');
    expect(schemas.ProductDto.properties.id).toMatchObject({ type: 'integer', minimum: 1 });
    const page = op('get', '/v1/products').parameters.find((parameter: Json) => parameter.name === 'page');
    expect(page.schema).toMatchObject({ type: 'integer', minimum: 1 });
  });

  it('pre-fills no query value in "Try it out", and Swagger UI keeps the authorization across reloads', async () => {
    for (const { op: operation } of operations()) {
      for (const parameter of (operation.parameters ?? []) as Json[]) {
        if (parameter.in !== 'query') continue;
        expect({ name: parameter.name, example: parameter.example ?? parameter.schema?.example }).toEqual({
          name: parameter.name,
          example: undefined,
        });
      }
    }
    const init = await t.http().get('/docs/swagger-initializer.js').expect(200);
    expect(init.text).toMatch(/"persistAuthorization":\s*true/);
  });

  describe('the contract check', () => {
    const checker = () => ContractChecker.for(text);
    const headers = {
      'content-type': 'application/json',
      'x-request-id': 'r',
      'x-rate-limit-limit': '30',
      'x-rate-limit-remaining': '29',
      'x-rate-limit-identifier': 'i',
      'ratelimit-policy': '"get-products";q=30;w=3',
      ratelimit: '"get-products";r=29;t=1',
    };
    const page = { data: [], page: 1, per_page: 20, total: 0 };

    it('accepts a documented answer', () => {
      expect(checker().problems('get', '/v1/products?page=1', { status: 200, headers, body: page })).toEqual([]);
    });

    it('refuses an undocumented status, a body off its schema, an unnamed field and a missing required header', () => {
      expect(checker().problems('get', '/v1/products', { status: 418, headers, body: page })[0]).toMatch(
        /status 418 is not in the document for listProducts/,
      );
      expect(
        checker().problems('get', '/v1/products', { status: 200, headers, body: { ...page, page: 'one' } })[0],
      ).toMatch(/body does not match/);
      expect(
        checker().problems('get', '/v1/products', { status: 200, headers, body: { ...page, extra: 1 } })[0],
      ).toMatch(/must NOT have additional properties/);
      const { 'x-rate-limit-limit': _dropped, ...without } = headers;
      expect(checker().problems('get', '/v1/products', { status: 200, headers: without, body: page })[0]).toMatch(
        /header X-Rate-Limit-Limit missing/,
      );
      const wrongCode = { error: ['error_not_found'], message: 'x' };
      expect(checker().problems('get', '/v1/users/me', { status: 401, headers, body: wrongCode })[0]).toMatch(
        /body does not match/,
      );
    });

    it('accepts the 404 error body for an unknown route, and nothing else there', () => {
      expect(
        checker().problems('get', '/v1/nothing', {
          status: 404,
          headers,
          body: { error: ['error_not_found'], message: 'x' },
        }),
      ).toEqual([]);
      expect(checker().problems('get', '/v1/nothing', { status: 200, headers, body: {} })).toHaveLength(1);
    });
  });

  it('types a generated client that is current: `npm run client:generate` writes client/openapi.d.ts', () => {
    const source = join(dir, 'served.json');
    const generated = join(dir, 'openapi.d.ts');
    writeFileSync(source, text);
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), source, '-o', generated],
      { stdio: 'pipe' },
    );
    expect(readFileSync(join(ROOT, 'client/openapi.d.ts'), 'utf8')).toBe(readFileSync(generated, 'utf8'));
  });

  it('runs the client example of docs/client.md against a started service: login → me → a product', async () => {
    const [company] = await createCompanies(t, 'Client Co');
    const account = await createAccount(t, [company.id], ['*']);
    const session = await login(t, account, company.id);
    const created = await authed(t, session.jwt)
      .post('/v1/products', { name: 'Green tea', sku: 'TEA-1', price: 1250 })
      .expect(201);
    await t.app.listen(0, '127.0.0.1');
    const address = t.app.getHttpServer().address() as { port: number };

    const result = await loginAndReadAProduct(`http://127.0.0.1:${address.port}`, account.email, account.password);

    expect(result).toEqual({
      employee: account.email,
      company: 'Client Co',
      permissions: ['*'],
      product: { id: created.body.id, name: 'Green tea', price: 1250 },
      remaining: expect.stringMatching(/^\d+$/),
    });
  });
});
