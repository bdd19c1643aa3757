import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { MAX_URL_LENGTH } from '../src/operations/bootstrap/edge-errors';
import { expectError, expectInvalid } from './support/expectations';
import { type Account, authed, createAccount, createCompanies, login, type LoginBody } from './support/fixtures';
import { ProbeModule } from './support/probe.module';
import { chunked, pieces, rawRequest } from './support/raw-http';
import { startTestApp, type TestApp } from './support/test-app';

const SHAPE = { error: [expect.stringMatching(/^error_[a-z_]+$/)], message: expect.any(String) };

function nestedJson(levels: number): string {
  return '['.repeat(levels) + ']'.repeat(levels);
}

describe('hostile input: one sanity layer, every pre-routing answer in shape, oversized bodies', () => {
  let t: TestApp;
  let port: number;
  let account: Account;
  let owner: LoginBody;
  let companyId: number;

  beforeAll(async () => {
    t = await startTestApp({ extraModules: [ProbeModule] });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
    const [company] = await createCompanies(t, 'Hostile Co');
    companyId = company.id;
    account = await createAccount(t, [company.id], ['*']);
    owner = await login(t, account, company.id);
  });

  afterAll(async () => {
    // A 4xx is never logged with a stack; nothing in this file is unexpected.
    expect(t.logs.lines.filter((line) => line.includes('"stack"'))).toEqual([]);
    await t?.close();
  });

  const rowCounts = async () =>
    (await t.app
      .get(DataSource)
      .query(
        'SELECT (SELECT count(*) FROM employee) AS e, (SELECT count(*) FROM product) AS p, (SELECT count(*) FROM api_key) AS k',
      )) as unknown[];

  describe('text fields and nesting (400 error_validation, before any pipe, handler or query)', () => {
    it.each([
      ['a NUL byte', 'ann\u0000@acme.io'],
      ['an unpaired surrogate', 'ann\ud800@acme.io'],
    ])('refuses %s in a login e-mail, naming the field, with the rate-limit headers', async (_label, email) => {
      const res = await t.http().post('/v1/users/authenticateinit').send({ email, password: account.password });
      expectInvalid(res, 'email');
      expect(res.headers['x-rate-limit-identifier']).toMatch(/\|POST\|users\|-$/);
      expect(res.headers['x-rate-limit-remaining']).toEqual(expect.any(String));
    });

    it('refuses a NUL in a password, a nested field, and a query filter', async () => {
      expectInvalid(
        await t
          .http()
          .post('/v1/users/authenticatefinish')
          .send({ email: account.email, password: 'a\u0000', company_id: companyId }),
        'password',
      );
      const before = await rowCounts();
      expectInvalid(await authed(t, owner.jwt).post('/v1/products', { name: 'x', sku: 'S\u0000', price: 1 }), 'sku');
      expectInvalid(await authed(t, owner.jwt).get('/v1/products?name=a%00b'), 'name');
      expectInvalid(await authed(t, owner.jwt).get('/v1/products/%00'), 'id');
      expectInvalid(
        await authed(t, owner.jwt).post('/v1/apikeys', { name: 'k\udfff', permissions: ['products:read'] }),
        'name',
      );
      expectInvalid(
        await authed(t, owner.jwt).post('/v1/users', {
          email: 'new@acme.io',
          password: 'long enough password',
          name: 'N\u0000',
          permissions: [],
        }),
        'name',
      );
      expect(await rowCounts()).toEqual(before);
    });

    it('refuses a NUL in a field name', async () => {
      const res = await t
        .http()
        .post('/v1/users/authenticateinit')
        .set('content-type', 'application/json')
        .send('{"email":"a@b.io","password":"x","p\\u0000":1}');
      expectInvalid(res, 'body');
    });

    it('takes 32 levels of nesting to validation and refuses 33, and 1,500 without a stack overflow', async () => {
      const at32 = await t
        .http()
        .post('/v1/probe/echo')
        .set('content-type', 'application/json')
        .send(`{"name":"x","count":1,"tag":${nestedJson(31)}}`);
      // 32 levels in all: past the depth rule, to the DTO (which takes it).
      expect(at32.status).toBe(201);
      for (const levels of [32, 1_500, 200_000]) {
        const res = await t
          .http()
          .post('/v1/users/authenticateinit')
          .set('content-type', 'application/json')
          .send(`{"email":${nestedJson(levels)},"password":"x"}`);
        expectInvalid(res, 'email');
        expect(res.body.message).toContain('nested deeper than 32 levels');
      }
    });
  });

  describe('answers decided before routing, in the contract shape', () => {
    it('answers malformed HTTP with 400 error_bad_request and closes', async () => {
      for (const head of [
        'GET /v1/users/me HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n',
        'POST /v1/users/authenticateinit HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello',
        'GET /v1/users/me HTTP/9.9\r\nHost: x\r\n\r\n',
        'POST /v1/users/authenticateinit HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      ]) {
        const res = await rawRequest(port, { head });
        expect({ status: res.status, body: JSON.parse(res.body) }).toEqual({
          status: 400,
          body: { error: ['error_bad_request'], message: expect.any(String) },
        });
        expect(res.headers.connection).toBe('close');
        expect(res.ending).toBe('end');
      }
    });

    it('answers headers over the limit with 431 error_headers_too_large', async () => {
      const res = await rawRequest(port, {
        head: `GET /v1/users/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`,
      });
      expect({ status: res.status, body: JSON.parse(res.body) }).toEqual({
        status: 431,
        body: { error: ['error_headers_too_large'], message: expect.any(String) },
      });
      expect(res.ending).toBe('end');
    });

    it('answers a path or query over the limit with 414 error_uri_too_long, never echoing it', async () => {
      const longId = '7'.repeat(101);
      const byParam = await authed(t, owner.jwt).get(`/v1/products/${longId}`);
      expectError(byParam, 414, 'error_uri_too_long');
      expect(JSON.stringify(byParam.body)).not.toContain(longId);

      const longQuery = `/v1/products?name=${'q'.repeat(MAX_URL_LENGTH)}`;
      const byQuery = await authed(t, owner.jwt).get(longQuery);
      expectError(byQuery, 414, 'error_uri_too_long');
      expect(JSON.stringify(byQuery.body)).not.toContain('qqqq');

      // Over Node's own 16 KiB header limit the parser refuses the request line before Fastify sees it.
      const raw = await rawRequest(port, {
        head: `GET /v1/products?name=${'q'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      });
      expect({ status: raw.status, body: JSON.parse(raw.body) }).toEqual({
        status: 414,
        body: { error: ['error_uri_too_long'], message: expect.any(String) },
      });
    });

    it('answers a malformed percent-encoding with 400 error_bad_request, not echoing the path', async () => {
      const res = await t.http().get('/v1/products/%zz-secretish');
      expectError(res, 400, 'error_bad_request');
      expect(JSON.stringify(res.body)).not.toContain('secretish');
    });

    it('answers unknown routes with 404 error_not_found in shape', async () => {
      for (const path of ['/nothing', '/v1/../../etc/passwd', '/v2/users/me', '/%2e%2e/x']) {
        const res = await t.http().get(path);
        expectError(res, 404, 'error_not_found');
      }
    });
  });

  describe('bodies over the limit: the 413 arrives, then the connection closes without a reset', () => {
    const jsonHead = (extra: string) =>
      `POST /v1/users/authenticateinit HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${extra}\r\n`;

    it.each([
      ['a 2 MiB body sent slowly with Content-Length', `Content-Length: ${2 * 1024 * 1024}\r\n`, false, false],
      ['a 2 MiB chunked body sent slowly', 'Transfer-Encoding: chunked\r\n', true, false],
      [
        'a 2 MiB body from a client that keeps writing after the answer',
        `Content-Length: ${2 * 1024 * 1024}\r\n`,
        false,
        true,
      ],
      ['a 3 MiB chunked body from a client that keeps writing', 'Transfer-Encoding: chunked\r\n', true, true],
    ])('%s', async (_label, framing, isChunked, keepSending) => {
      const size = (keepSending && isChunked ? 3 : 2) * 1024 * 1024;
      const parts = pieces(size, 64 * 1024);
      const res = await rawRequest(port, {
        head: jsonHead(framing),
        chunks: isChunked ? chunked(parts) : parts,
        delayMs: 3,
        keepSending,
      });
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body)).toEqual({ error: ['error_payload_too_large'], message: expect.any(String) });
      expect(res.headers.connection).toBe('close');
      expect(res.ending).toBe('end');
      expect(res.errors).toEqual([]);
    });

    it('answers an 11 MiB upload over FILES_MAX_BYTES with 413, and the next request on a kept-alive agent works', async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const boundary = 'hostile-boundary';
      const partHead = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      );
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
      const fileBytes = 11 * 1024 * 1024;
      const send = (method: string, path: string, body?: Buffer[], headers: Record<string, string | number> = {}) =>
        new Promise<{ status: number; connection?: string; body: string; error?: string }>((resolve) => {
          const req = request(
            { host: '127.0.0.1', port, method, path, agent, headers: { authorization: owner.jwt, ...headers } },
            (res) => {
              let text = '';
              res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
              res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body: text }));
            },
          );
          req.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, body: '', error: error.code }));
          void (async () => {
            for (const chunk of body ?? []) {
              if (req.destroyed) return;
              if (!req.write(chunk)) await new Promise((done) => req.once('drain', done));
            }
            req.end();
          })();
        });
      try {
        for (let round = 0; round < 2; round++) {
          const parts = [partHead, ...pieces(fileBytes, 256 * 1024, 'b'), tail];
          const upload = await send('POST', '/v1/files', parts, {
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': parts.reduce((sum, part) => sum + part.length, 0),
          });
          expect(upload.error).toBeUndefined();
          expect(upload.status).toBe(413);
          expect(JSON.parse(upload.body)).toEqual({ error: ['error_payload_too_large'], message: expect.any(String) });
          expect(upload.connection).toBe('close');
          const next = await send('GET', '/v1/users/me');
          expect({ status: next.status, error: next.error }).toEqual({ status: 200, error: undefined });
        }
      } finally {
        agent.destroy();
      }
    });

    it('closes an unread upload refused by authentication the same way (401, then FIN)', async () => {
      const parts = pieces(4 * 1024 * 1024, 64 * 1024);
      const res = await rawRequest(port, {
        head:
          'POST /v1/files HTTP/1.1\r\nHost: x\r\nAuthorization: made-up\r\n' +
          `Content-Type: multipart/form-data; boundary=b\r\nContent-Length: ${4 * 1024 * 1024}\r\n\r\n`,
        chunks: parts,
        delayMs: 1,
        keepSending: true,
      });
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body)).toEqual(SHAPE);
      expect(res.ending).toBe('end');
      expect(res.errors).toEqual([]);
    });
  });
});
