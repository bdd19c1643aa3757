import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { HOST_RESOLVER } from '../src/platform/common/outbound/pinned-request';
import { FILE_STORAGE, type FileStorage } from '../src/features/files/storage/file-storage';
import { DnsServer } from './support/dns-server';
import { createAccount, createCompanies, login, type LoginBody } from './support/fixtures';
import type { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';

const MAX_BYTES = 2048;
const FETCH_TIMEOUT_MS = 1000;
// A 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer | string;
}

/** A multipart/form-data body written by hand, so that file names reach the server exactly as given. */
function multipart(...parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----files-e2e-${randomUUID()}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += '\r\n';
    if (part.contentType !== undefined) head += `Content-Type: ${part.contentType}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`, 'utf8'), Buffer.from(part.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Supertest's parser for a body kept as the exact bytes, whatever its content type. */
function bytes(response: unknown, callback: (error: Error | null, body: Buffer) => void): void {
  const res = response as IncomingMessage;
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}

/** Every regular file under `dir` (none when it does not exist). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((entry) => join(dir, entry))
    .filter((path) => statSync(path).isFile());
}

/**
 * The image server of the tests, on 127.0.0.1 (allow-listed in the main app): a good PNG, things that are not
 * images, too big or too slow, and redirects to where the fetcher must not go. `rebind` runs before
 * /rebind-then-redirect answers (a redirect to its own /pixel.png): the DNS answer of the name changes between
 * the connection that was checked and the next.
 */
function startImageServer(hits: string[], rebind: () => Promise<void>): Promise<Server> {
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    '/rebind-then-redirect': (_req, res) =>
      void rebind().then(
        () => res.writeHead(302, { location: '/pixel.png' }).end(),
        () => res.writeHead(500).end(),
      ),
    '/pixel.png': (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(PNG),
    '/image': (_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg; charset=binary' }).end(PNG),
    '/page.html': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>not an image</html>'),
    '/html-as-png.png': (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end('<svg onload=x>'),
    '/missing.png': (_req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('no'),
    '/huge.png': (_req, res) => {
      // No Content-Length: the limit has to be enforced on the bytes as they arrive.
      res.writeHead(200, { 'content-type': 'image/png' });
      res.on('error', () => undefined);
      res.write(PNG);
      let sent = PNG.length;
      const more = () => {
        while (sent < 256 * 1024 && !res.destroyed) {
          sent += 1024;
          if (!res.write(Buffer.alloc(1024, 7))) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    },
    '/huge-declared.png': (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(50 * 1024 * 1024) });
      res.write(PNG);
    },
    '/slow.png': (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(PNG.subarray(0, 8));
      // ...and nothing more, ever.
    },
    '/redirect-relative': (_req, res) => res.writeHead(302, { location: '/pixel.png' }).end(),
    '/redirect-loop': (_req, res) => res.writeHead(302, { location: '/redirect-loop' }).end(),
    '/redirect-ftp': (_req, res) => res.writeHead(301, { location: 'ftp://127.0.0.1/pixel.png' }).end(),
    '/redirect-metadata': (_req, res) =>
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/' }).end(),
  };
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const path = (req.url ?? '').split('?')[0];
    if (path === '/redirect-private') {
      // Same port, another loopback address: not on the allow-list.
      const port = (server.address() as AddressInfo).port;
      return void res.writeHead(307, { location: `http://127.0.0.2:${port}/pixel.png` }).end();
    }
    const route = routes[path];
    if (route) route(req, res);
    else res.writeHead(404).end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('files', () => {
  let t: TestApp;
  let strict: TestApp;
  let server: Server;
  let dns: DnsServer;
  /** Where a name rebound to 127.0.0.2 would be reached: the image server's port on that address. */
  let trap: Server;
  const trapHits: string[] = [];
  let base: string;
  const hits: string[] = [];
  let companyId: number;
  let writer: LoginBody;
  let reader: LoginBody;
  let outsider: LoginBody;
  let strictWriter: LoginBody;

  // The main app's host names, answered by a real DNS server (dnsmasq, TTL 0) that the app asks over the wire.
  const records: Record<string, string[]> = {
    'intranet.example.test': ['10.0.0.5'],
    'mixed.example.test': ['93.184.215.14', '192.168.0.10'],
    'metadata.example.test': ['fd00:ec2::254'],
    'images.example.test': ['127.0.0.1'],
    // The image server's address at first; /rebind-then-redirect moves it to 127.0.0.2 (loopback, not allowed).
    'rebind.example.test': ['127.0.0.1'],
  };

  const filesDir = () => join(t.database.dataDir, 'files');
  const stagingDir = () => join(t.database.dataDir, 'tmp', 'files');
  const rowCount = async () =>
    Number((await t.app.get(DataSource).query('SELECT count(*)::int AS n FROM "file"'))[0].n);

  const upload = (jwt: string | undefined, ...parts: Part[]) => {
    const { body, contentType } = multipart(...parts);
    const req = t.http().post('/v1/files').set('content-type', contentType);
    return (jwt === undefined ? req : req.set('authorization', jwt)).send(body);
  };
  const fetchImage = (app: TestApp, jwt: string, url: string) =>
    app.http().post('/v1/files/addimagefromurl').set('authorization', jwt).send({ url });

  const expectError = (res: { status: number; body: unknown }, status: number, code: string) => {
    expect({ status: res.status, body: res.body }).toEqual({
      status,
      body: expect.objectContaining({ error: [code], message: expect.any(String) }),
    });
  };
  const expectUrlRefused = (res: { status: number; body: { details?: unknown } }) => {
    expectError(res, 400, 'error_validation');
    expect(res.body.details).toEqual([{ field: 'url', message: expect.any(String) }]);
  };
  const expectNothingLeftBehind = async (rowsBefore: number) => {
    expect(await rowCount()).toBe(rowsBefore);
    const stored = new Set(
      ((await t.app.get(DataSource).query('SELECT storage_key FROM "file"')) as Array<{ storage_key: string }>).map(
        (row) => join(filesDir(), row.storage_key),
      ),
    );
    expect(filesUnder(filesDir()).filter((path) => !stored.has(path))).toEqual([]);
    expect(filesUnder(stagingDir())).toEqual([]);
  };

  beforeAll(async () => {
    dns = await DnsServer.start({}, records);
    server = await startImageServer(hits, () => dns.publishAddresses('rebind.example.test', '127.0.0.2'));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    trap = createServer((req, res) => {
      trapHits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    });
    await new Promise<void>((resolve, reject) => {
      trap.once('error', reject);
      trap.listen((server.address() as AddressInfo).port, '127.0.0.2', resolve);
    });
    t = await startTestApp({
      env: {
        FILES_MAX_BYTES: String(MAX_BYTES),
        FILES_FETCH_TIMEOUT_MS: String(FETCH_TIMEOUT_MS),
        FILES_FETCH_ALLOWLIST: '127.0.0.1',
      },
      configure: (builder) => builder.overrideProvider(HOST_RESOLVER).useValue(dns.hostResolver()),
    });
    // The default policy, with no allow-list: even the test server on loopback is out of reach.
    strict = await startTestApp({ env: { FILES_MAX_BYTES: String(MAX_BYTES) } });

    const [company, other] = await createCompanies(t, 'Files Co', 'Other Co');
    companyId = company.id;
    writer = await login(t, await createAccount(t, [company.id], ['files:write']), company.id);
    reader = await login(t, await createAccount(t, [company.id], ['users:read', 'products:write']), company.id);
    outsider = await login(t, await createAccount(t, [other.id], ['*']), other.id);
    const [strictCompany] = await createCompanies(strict, 'Strict Co');
    strictWriter = await login(
      strict,
      await createAccount(strict, [strictCompany.id], ['files:write']),
      strictCompany.id,
    );
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    trap?.closeAllConnections();
    await new Promise((resolve) => (trap ? trap.close(resolve) : resolve(undefined)));
    await strict?.close();
    await t?.close();
    await dns?.stop();
  });

  describe('POST /v1/files', () => {
    it('stores the upload under DATA_DIR/files by a generated name and answers its record', async () => {
      const content = 'quarterly numbers\n'.repeat(20);
      const res = await upload(writer.jwt, {
        name: 'file',
        filename: 'C:\\Users\\me\\..\\report\u0007\u202eq3.txt',
        contentType: 'Text/Plain; charset=utf-8',
        data: content,
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'reportq3.txt',
        content_type: 'text/plain',
        size: Buffer.byteLength(content),
        sha256: sha256(content),
        created_at: expect.any(String),
      });
      expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);

      const onDisk = join(filesDir(), String(companyId), res.body.id);
      expect(readFileSync(onDisk, 'utf8')).toBe(content);
      expect(filesUnder(filesDir()).some((path) => path.includes('report'))).toBe(false);
      expect(filesUnder(stagingDir())).toEqual([]);

      const [row] = await t.app
        .get(DataSource)
        .query('SELECT company_id, name, content_type, size, sha256, storage_key FROM "file" WHERE id = $1', [
          res.body.id,
        ]);
      expect({ ...row, size: String(row.size) }).toEqual({
        company_id: companyId,
        name: 'reportq3.txt',
        content_type: 'text/plain',
        size: String(Buffer.byteLength(content)),
        sha256: sha256(content),
        storage_key: `${companyId}/${res.body.id}`,
      });

      const stream = await t.app.get<FileStorage>(FILE_STORAGE).get(row.storage_key);
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).toString()).toBe(content);

      expect(res.headers['x-rate-limit-limit']).toBe(String(30 * 1000));
      expect(res.headers['x-rate-limit-identifier']).toMatch(/\|POST\|files\|[0-9a-f]{16}$/);
    });

    it('keeps a UTF-8 name, and takes a file of exactly the limit', async () => {
      const data = Buffer.alloc(MAX_BYTES, 1);
      const res = await upload(writer.jwt, {
        name: 'file',
        filename: 'ảnh đại diện.bin',
        contentType: 'application/octet-stream',
        data,
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ name: 'ảnh đại diện.bin', size: MAX_BYTES, sha256: sha256(data) });
    });

    it('answers an upload over the limit with 413 and leaves no file behind, on disk or in the database', async () => {
      const before = await rowCount();
      const res = await upload(writer.jwt, {
        name: 'file',
        filename: 'big.bin',
        contentType: 'application/octet-stream',
        data: Buffer.alloc(MAX_BYTES * 4, 2),
      });
      expectError(res, 413, 'error_payload_too_large');
      await expectNothingLeftBehind(before);
    });

    it('answers 413 for an upload one byte over the limit too', async () => {
      const before = await rowCount();
      const res = await upload(writer.jwt, { name: 'file', filename: 'b.bin', data: Buffer.alloc(MAX_BYTES + 1, 3) });
      expectError(res, 413, 'error_payload_too_large');
      await expectNothingLeftBehind(before);
    });

    it('refuses a JSON, text or empty body with 415 error_unsupported_media_type', async () => {
      const json = await t.http().post('/v1/files').set('authorization', writer.jwt).send({ file: 'aGVsbG8=' });
      expectError(json, 415, 'error_unsupported_media_type');
      expect(json.headers['x-rate-limit-limit']).toBe(String(30 * 1000));
      const text = await t
        .http()
        .post('/v1/files')
        .set('authorization', writer.jwt)
        .set('content-type', 'text/plain')
        .send('hello');
      expectError(text, 415, 'error_unsupported_media_type');
      expectError(
        await t.http().post('/v1/files').set('authorization', writer.jwt),
        415,
        'error_unsupported_media_type',
      );
    });

    it('keeps the JSON-only rule on other routes: a multipart body to a JSON route answers 415', async () => {
      const { body, contentType } = multipart(
        { name: 'email', data: 'a@example.test' },
        { name: 'password', data: 'x' },
      );
      const res = await t.http().post('/v1/users/authenticateinit').set('content-type', contentType).send(body);
      expectError(res, 415, 'error_unsupported_media_type');
      const image = await t
        .http()
        .post('/v1/files/addimagefromurl')
        .set('authorization', writer.jwt)
        .set('content-type', contentType)
        .send(body);
      expectError(image, 415, 'error_unsupported_media_type');
    });

    it('refuses a body without a part named file, or a part whose Content-Type is not a media type', async () => {
      const wrongName = await upload(writer.jwt, {
        name: 'upload',
        filename: 'a.txt',
        contentType: 'text/plain',
        data: 'x',
      });
      expectError(wrongName, 400, 'error_validation');
      expect(wrongName.body.details).toEqual([{ field: 'file', message: expect.any(String) }]);
      const fieldOnly = await upload(writer.jwt, { name: 'file', data: 'just a field' });
      expectError(fieldOnly, 400, 'error_validation');
      const badType = await upload(writer.jwt, { name: 'file', filename: 'a.txt', contentType: 'no-slash', data: 'x' });
      expectError(badType, 400, 'error_validation');
      expect(badType.body.details).toEqual([{ field: 'file', message: expect.any(String) }]);
    });

    it('answers 401 without a credential and 403 without files:write, and stores nothing', async () => {
      const before = await rowCount();
      const served = hits.length;
      const part = { name: 'file', filename: 'a.txt', contentType: 'text/plain', data: 'x' };
      expectError(await upload(undefined, part), 401, 'error_jwt_is_required');
      expectError(await upload(reader.jwt, part), 403, 'error_permission_denied');
      expectError(await fetchImage(t, reader.jwt, `${base}/pixel.png`), 403, 'error_permission_denied');
      expectError(
        await t
          .http()
          .post('/v1/files/addimagefromurl')
          .send({ url: `${base}/pixel.png` }),
        401,
        'error_jwt_is_required',
      );
      await expectNothingLeftBehind(before);
      expect(hits.length).toBe(served);
    });
  });

  describe('GET /v1/files/{id}', () => {
    it("answers the company's own file and 404 for another company's or a malformed id", async () => {
      const created = await upload(writer.jwt, {
        name: 'file',
        filename: 'mine.txt',
        contentType: 'text/plain',
        data: 'mine',
      });
      expect(created.status).toBe(201);
      const own = await t.http().get(`/v1/files/${created.body.id}`).set('authorization', writer.jwt).expect(200);
      expect(own.body).toEqual(created.body);
      expectError(
        await t.http().get(`/v1/files/${created.body.id}`).set('authorization', outsider.jwt),
        404,
        'error_not_found',
      );
      expectError(await t.http().get('/v1/files/not-a-uuid').set('authorization', writer.jwt), 404, 'error_not_found');
      expectError(
        await t.http().get(`/v1/files/${randomUUID()}`).set('authorization', writer.jwt),
        404,
        'error_not_found',
      );
    });
  });

  describe('GET /v1/files', () => {
    it("lists the company's records newest first, in pages, never the content or another company's files", async () => {
      const [company] = await createCompanies(t, 'Lister Co');
      const own = await login(t, await createAccount(t, [company.id], ['files:write']), company.id);
      const clock = t.clock as ManualClock;
      const made: Array<{ id: string }> = [];
      for (const name of ['a.txt', 'b.txt', 'c.txt']) {
        clock.advance(1000);
        const res = await upload(own.jwt, { name: 'file', filename: name, contentType: 'text/plain', data: name });
        expect(res.status).toBe(201);
        made.push(res.body);
      }
      const newestFirst = [...made].reverse();
      const list = (query = '') => t.http().get(`/v1/files${query}`).set('authorization', own.jwt);

      expect((await list().expect(200)).body).toEqual({ data: newestFirst, page: 1, per_page: 20, total: 3 });
      expect((await list('?page=2&per_page=2').expect(200)).body).toEqual({
        data: newestFirst.slice(2),
        page: 2,
        per_page: 2,
        total: 3,
      });
      expect((await list('?page=3&per_page=2').expect(200)).body).toEqual({ data: [], page: 3, per_page: 2, total: 3 });
      expect((await list('?per_page=100').expect(200)).body.total).toBe(3);

      const theirs = await t.http().get('/v1/files?per_page=100').set('authorization', outsider.jwt).expect(200);
      const theirIds = (theirs.body.data as Array<{ id: string }>).map((file) => file.id);
      expect(theirIds.filter((id) => made.some((file) => file.id === id))).toEqual([]);
    });

    it.each([
      ['page=0', 'page'],
      ['per_page=0', 'per_page'],
      ['per_page=101', 'per_page'],
      ['page=x', 'page'],
      ['name=a', 'name'],
      ['sort=size', 'sort'],
    ])('refuses ?%s with 400 error_validation naming %s', async (query, field) => {
      const res = await t.http().get(`/v1/files?${query}`).set('authorization', writer.jwt);
      expectError(res, 400, 'error_validation');
      expect(res.body.details).toEqual(expect.arrayContaining([{ field, message: expect.any(String) }]));
    });
  });

  describe('GET /v1/files/{id}/content', () => {
    const download = (jwt: string, id: string) =>
      t.http().get(`/v1/files/${id}/content`).set('authorization', jwt).buffer(true).parse(bytes);

    it('answers the bytes as uploaded, with the stored type, as an attachment that is never sniffed', async () => {
      const data = Buffer.from(Array.from({ length: 1500 }, (_, i) => (i * 7) % 256));
      const created = await upload(writer.jwt, {
        name: 'file',
        filename: 'data.bin',
        contentType: 'application/octet-stream',
        data,
      });
      expect(created.status).toBe(201);
      const res = await download(writer.jwt, created.body.id).expect(200);
      expect(Buffer.compare(res.body as Buffer, data)).toBe(0);
      expect(res.headers).toMatchObject({
        'content-type': 'application/octet-stream',
        'content-length': String(data.length),
        'content-disposition': 'attachment; filename="data.bin"',
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
        'cache-control': 'private, no-store',
      });
      expect(res.headers['x-rate-limit-identifier']).toMatch(/\|GET\|files\|[0-9a-f]{16}$/);
    });

    it.each([
      ['text/html', 'page.html', '<html><script>alert(document.cookie)</script></html>'],
      ['image/svg+xml', 'logo.svg', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'],
      ['text/plain', 'notes.txt', 'plain text, no charset added'],
    ])('serves %s only as a download, with the type it was stored with', async (contentType, filename, data) => {
      const created = await upload(writer.jwt, { name: 'file', filename, contentType, data });
      const res = await download(writer.jwt, created.body.id).expect(200);
      expect((res.body as Buffer).toString('utf8')).toBe(data);
      expect(res.headers['content-type']).toBe(contentType);
      expect(res.headers['content-disposition']).toBe(`attachment; filename="${filename}"`);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toMatch(/sandbox/);
    });

    it('names a non-ASCII or quoted file exactly through filename*, with a plain ASCII fallback', async () => {
      const created = await upload(writer.jwt, {
        name: 'file',
        // A quoted-string with escaped quotes, as RFC 7578 allows.
        filename: 'báo cáo \\"Q3\\".pdf',
        contentType: 'application/pdf',
        data: '%PDF-1.4',
      });
      expect(created.body.name).toBe('báo cáo "Q3".pdf');
      const res = await download(writer.jwt, created.body.id).expect(200);
      const disposition = res.headers['content-disposition'];
      expect(disposition).toBe(
        `attachment; filename="b_o c_o _Q3_.pdf"; filename*=UTF-8''b%C3%A1o%20c%C3%A1o%20%22Q3%22.pdf`,
      );
      expect(decodeURIComponent(disposition.split("''")[1])).toBe(created.body.name);
    });

    it('answers HEAD with the same headers and no body', async () => {
      const created = await upload(writer.jwt, {
        name: 'file',
        filename: 'h.txt',
        contentType: 'text/plain',
        data: 'head',
      });
      const res = await t.http().head(`/v1/files/${created.body.id}/content`).set('authorization', writer.jwt);
      expect(res.status).toBe(200);
      expect(res.headers['content-length']).toBe('4');
      expect(res.headers['content-disposition']).toBe('attachment; filename="h.txt"');
      expect(res.text ?? '').toBe('');
    });

    it("is 404 for another company's file, an unknown or malformed id, and 401/403 without files:write", async () => {
      const created = await upload(writer.jwt, {
        name: 'file',
        filename: 's.txt',
        contentType: 'text/plain',
        data: 's',
      });
      const content = (id: string) => `/v1/files/${id}/content`;
      expectError(
        await t.http().get(content(created.body.id)).set('authorization', outsider.jwt),
        404,
        'error_not_found',
      );
      expectError(await t.http().get(content(randomUUID())).set('authorization', writer.jwt), 404, 'error_not_found');
      expectError(await t.http().get(content('not-a-uuid')).set('authorization', writer.jwt), 404, 'error_not_found');
      expectError(
        await t.http().get(content(created.body.id)).set('authorization', reader.jwt),
        403,
        'error_permission_denied',
      );
      expectError(await t.http().get(content(created.body.id)), 401, 'error_jwt_is_required');
      expectError(
        await t
          .http()
          .get(`${content(created.body.id)}?download=1`)
          .set('authorization', writer.jwt),
        400,
        'error_validation',
      );
    });

    it('is 404, not 500, when the record is there but the stored content is gone', async () => {
      const created = await upload(writer.jwt, {
        name: 'file',
        filename: 'lost.txt',
        contentType: 'text/plain',
        data: 'x',
      });
      rmSync(join(filesDir(), String(companyId), created.body.id));
      expectError(
        await t.http().get(`/v1/files/${created.body.id}/content`).set('authorization', writer.jwt),
        404,
        'error_not_found',
      );
      expect(t.logs.records).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            msg: 'file record without stored content',
            storageKey: `${companyId}/${created.body.id}`,
          }),
        ]),
      );
      // ...and deleting such a record still works.
      await t.http().delete(`/v1/files/${created.body.id}`).set('authorization', writer.jwt).expect(204);
      expect(await t.app.get(DataSource).query('SELECT 1 FROM "file" WHERE id = $1', [created.body.id])).toEqual([]);
    });
  });

  describe('DELETE /v1/files/{id}', () => {
    it('removes the record and the stored content; afterwards every route answers 404', async () => {
      const created = await upload(writer.jwt, {
        name: 'file',
        filename: 'gone.txt',
        contentType: 'text/plain',
        data: 'bye',
      });
      const onDisk = join(filesDir(), String(companyId), created.body.id);
      expect(existsSync(onDisk)).toBe(true);
      const before = await rowCount();

      const res = await t.http().delete(`/v1/files/${created.body.id}`).set('authorization', writer.jwt);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(res.headers['x-rate-limit-identifier']).toMatch(/\|DELETE\|files\|[0-9a-f]{16}$/);

      expect(await rowCount()).toBe(before - 1);
      expect(existsSync(onDisk)).toBe(false);
      for (const path of [`/v1/files/${created.body.id}`, `/v1/files/${created.body.id}/content`]) {
        expectError(await t.http().get(path).set('authorization', writer.jwt), 404, 'error_not_found');
      }
      expectError(
        await t.http().delete(`/v1/files/${created.body.id}`).set('authorization', writer.jwt),
        404,
        'error_not_found',
      );
      const listed = await t.http().get('/v1/files?per_page=100').set('authorization', writer.jwt).expect(200);
      expect((listed.body.data as Array<{ id: string }>).map((file) => file.id)).not.toContain(created.body.id);
      await expectNothingLeftBehind(before - 1);
    });

    it("leaves another company's file alone (404), and refuses without files:write (403) or a credential", async () => {
      const created = await upload(writer.jwt, {
        name: 'file',
        filename: 'keep.txt',
        contentType: 'text/plain',
        data: 'k',
      });
      const path = `/v1/files/${created.body.id}`;
      expectError(await t.http().delete(path).set('authorization', outsider.jwt), 404, 'error_not_found');
      expectError(await t.http().delete(path).set('authorization', reader.jwt), 403, 'error_permission_denied');
      expectError(await t.http().delete(path), 401, 'error_jwt_is_required');
      expectError(
        await t.http().delete('/v1/files/not-a-uuid').set('authorization', writer.jwt),
        404,
        'error_not_found',
      );
      expect((await t.http().get(path).set('authorization', writer.jwt).expect(200)).body).toEqual(created.body);
      expect(existsSync(join(filesDir(), String(companyId), created.body.id))).toBe(true);
    });

    it('still deletes the record when the storage fails to remove the content, and logs what it left', async () => {
      const created = await upload(writer.jwt, {
        name: 'file',
        filename: 'stuck.txt',
        contentType: 'text/plain',
        data: 's',
      });
      const storage = t.app.get<FileStorage>(FILE_STORAGE);
      const storageKey = `${companyId}/${created.body.id}`;
      const failing = jest.spyOn(storage, 'delete').mockRejectedValueOnce(new Error('EIO: the disk failed'));
      try {
        await t.http().delete(`/v1/files/${created.body.id}`).set('authorization', writer.jwt).expect(204);
        expect(failing.mock.calls).toEqual([[storageKey]]);
        expect(existsSync(join(filesDir(), String(companyId), created.body.id))).toBe(true);
      } finally {
        failing.mockRestore();
        // The content this test made the storage keep: later tests check that nothing is left behind.
        await storage.delete(storageKey);
      }
      expect(await t.app.get(DataSource).query('SELECT 1 FROM "file" WHERE id = $1', [created.body.id])).toEqual([]);
      expect(t.logs.records).toEqual(
        expect.arrayContaining([expect.objectContaining({ msg: 'deleted file left its content behind', storageKey })]),
      );
      expectError(
        await t.http().get(`/v1/files/${created.body.id}/content`).set('authorization', writer.jwt),
        404,
        'error_not_found',
      );
    });

    it('two concurrent deletes of one file: one 204, one 404', async () => {
      const created = await upload(writer.jwt, {
        name: 'file',
        filename: 'race.txt',
        contentType: 'text/plain',
        data: 'r',
      });
      const results = await Promise.all(
        [1, 2].map(() => t.http().delete(`/v1/files/${created.body.id}`).set('authorization', writer.jwt)),
      );
      expect(results.map((res) => res.status).sort()).toEqual([204, 404]);
    });
  });

  describe('POST /v1/files/addimagefromurl', () => {
    it('stores an image from an allow-listed server, typed by its bytes and named after the URL', async () => {
      const res = await fetchImage(t, writer.jwt, `${base}/pixel.png?size=1`);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'pixel.png',
        content_type: 'image/png',
        size: PNG.length,
        sha256: sha256(PNG),
        created_at: expect.any(String),
      });
      expect(readFileSync(join(filesDir(), String(companyId), res.body.id))).toEqual(PNG);
      expect(res.headers['x-rate-limit-limit']).toBe(String(30 * 1000));
    });

    it('records what the bytes are, not what the server claims, and names a nameless path', async () => {
      const res = await fetchImage(t, writer.jwt, `${base}/image`);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ name: 'image', content_type: 'image/png' });
    });

    it('follows a relative redirect, reaching a host name through the resolver', async () => {
      const port = (server.address() as AddressInfo).port;
      const res = await fetchImage(t, writer.jwt, `http://images.example.test:${port}/redirect-relative`);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ name: 'pixel.png', sha256: sha256(PNG) });
    });

    const ADDRESS = /address that is not allowed/;
    const SCHEME = /does not use http or https/;
    const CREDENTIALS = /user name or password/;
    const INVALID = /not a valid absolute URL/;

    // The default policy (no allow-list), so the loopback cases are refused for what they are.
    it.each([
      ['loopback', 'http://127.0.0.1/', ADDRESS],
      ['loopback with a port', 'http://127.0.0.1:8080/x.png', ADDRESS],
      ['another loopback address', 'http://127.0.0.2/', ADDRESS],
      ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]/', ADDRESS],
      ['metadata', 'http://169.254.169.254/', ADDRESS],
      ['metadata path', 'http://169.254.169.254/latest/meta-data/', ADDRESS],
      ['IPv6 loopback', 'http://[::1]/', ADDRESS],
      ['IPv6 metadata', 'http://[fd00:ec2::254]/', ADDRESS],
      ['IPv4-mapped metadata', 'http://[::ffff:169.254.169.254]/', ADDRESS],
      ['private', 'http://10.1.2.3/a.png', ADDRESS],
      ['private in decimal', 'http://3232235521/a.png', ADDRESS],
      ['loopback in hex', 'http://0x7f.1/', ADDRESS],
      ['unspecified', 'http://0.0.0.0/', ADDRESS],
      ['CGNAT', 'http://100.64.0.1/', ADDRESS],
      ['link-local IPv6', 'http://[fe80::1]/', ADDRESS],
      ['unique-local IPv6', 'http://[fd12:3456::1]/', ADDRESS],
      ['multicast', 'http://224.0.0.1/', ADDRESS],
      ['ftp', 'ftp://example.com/a.png', SCHEME],
      ['file', 'file:///etc/passwd', SCHEME],
      ['data', 'data:image/png;base64,iVBORw0KGgo=', SCHEME],
      ['credentials', 'http://user:pass@example.com/a.png', CREDENTIALS],
      ['relative', '/etc/passwd', INVALID],
    ])('refuses %s (%s) with 400 on url', async (_label, url, why) => {
      const res = await fetchImage(strict, strictWriter.jwt, url);
      expectUrlRefused(res);
      expect(res.body.message).toMatch(why);
      expect(JSON.stringify(res.body)).not.toMatch(/ECONN|EHOST|getaddrinfo|stack/);
    });

    it.each([
      ['metadata', 'http://169.254.169.254/'],
      ['IPv6 loopback', 'http://[::1]/'],
      ['another loopback address', 'http://127.0.0.2/'],
      ['ftp', 'ftp://127.0.0.1/pixel.png'],
    ])('refuses %s (%s) where the allow-list names only 127.0.0.1, storing nothing', async (_label, url) => {
      const before = await rowCount();
      const res = await fetchImage(t, writer.jwt, url);
      expectUrlRefused(res);
      expect(res.body.message).toMatch(url.startsWith('ftp') ? SCHEME : ADDRESS);
      await expectNothingLeftBehind(before);
    });

    it('refuses the allow-listed server itself when the deployment has no allow-list', async () => {
      const count = hits.length;
      expectUrlRefused(await fetchImage(strict, strictWriter.jwt, 'http://127.0.0.1/'));
      expectUrlRefused(await fetchImage(strict, strictWriter.jwt, `${base}/pixel.png`));
      expect(hits.length).toBe(count);
    });

    it('refuses host names that resolve to private addresses: localhost through the system resolver', async () => {
      const port = (server.address() as AddressInfo).port;
      const count = hits.length;
      const res = await fetchImage(strict, strictWriter.jwt, `http://localhost:${port}/pixel.png`);
      expectUrlRefused(res);
      expect(res.body.message).toMatch(ADDRESS);
      expect(res.body.message).not.toMatch(/127\.0\.0\.1|::1/);
      expect(hits.length).toBe(count);
    });

    it.each([
      ['a private address', 'http://intranet.example.test/a.png'],
      ['one private address among public ones', 'http://mixed.example.test/a.png'],
      ['the IPv6 metadata address', 'http://metadata.example.test/latest/'],
    ])('refuses a host name that resolves to %s, naming no address', async (_label, url) => {
      const res = await fetchImage(t, writer.jwt, url);
      expectUrlRefused(res);
      expect(res.body.message).toMatch(ADDRESS);
      expect(JSON.stringify(res.body)).not.toMatch(/10\.0\.0\.5|192\.168|fd00/);
    });

    describe('DNS rebinding, the answers of a real DNS server changing under the fetcher', () => {
      const port = () => (server.address() as AddressInfo).port;

      it('connects to the one address it checked: one DNS question per connection, none left to rebind', async () => {
        const asked = await dns.queries('rebind.example.test');
        const count = hits.length;
        const res = await fetchImage(t, writer.jwt, `http://rebind.example.test:${port()}/pixel.png`);
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ name: 'pixel.png', sha256: sha256(PNG) });
        expect(hits.slice(count)).toEqual(['/pixel.png']);
        // A fetcher that checked one answer and let the connection look the name up again would ask twice; the
        // second answer is the one a rebinding server makes private.
        expect((await dns.queries('rebind.example.test')) - asked).toBe(1);
        expect(trapHits).toEqual([]);
      });

      it('refuses the next connection once the answer has become a refused address, never reaching it', async () => {
        const before = await rowCount();
        const asked = await dns.queries('rebind.example.test');
        const count = hits.length;
        // The first connection reaches 127.0.0.1, checked; its answer (a redirect to the same name) comes only
        // after the name has moved to 127.0.0.2.
        const res = await fetchImage(t, writer.jwt, `http://rebind.example.test:${port()}/rebind-then-redirect`);
        expectUrlRefused(res);
        expect(res.body.message).toMatch(/redirects to an address that is not allowed/);
        expect(res.body.message).not.toContain('127.0.0.2');
        expect(hits.slice(count)).toEqual(['/rebind-then-redirect']);
        // The second hop asked DNS afresh (no verdict or socket kept from the first) and connected nowhere.
        expect((await dns.queries('rebind.example.test')) - asked).toBe(2);
        expect(trapHits).toEqual([]);
        // And a new request for the name, whose earlier answer was allowed, is refused for its answer now.
        const again = await fetchImage(t, writer.jwt, `http://rebind.example.test:${port()}/pixel.png`);
        expectUrlRefused(again);
        expect(again.body.message).toMatch(ADDRESS);
        expect(trapHits).toEqual([]);
        await expectNothingLeftBehind(before);
      });
    });

    it.each([
      ['to another loopback address', '/redirect-private'],
      ['to the metadata address', '/redirect-metadata'],
      ['to ftp', '/redirect-ftp'],
      ['more than 3 times', '/redirect-loop'],
    ])('refuses a redirect %s from the allow-listed server', async (_label, path) => {
      const count = hits.length;
      const res = await fetchImage(t, writer.jwt, `${base}${path}`);
      expectUrlRefused(res);
      expect(res.body.message).toMatch(/redirect/);
      expect(res.body.message).not.toContain('169.254');
      expect(res.body.message).not.toContain('127.0.0.2');
      // Only the allow-listed server was ever asked: 4 times for the loop (the first request and 3 redirects).
      expect(hits.slice(count)).toEqual(path === '/redirect-loop' ? Array(4).fill(path) : [path]);
    });

    it.each([
      ['a non-image Content-Type', '/page.html', /image/],
      ['an image Content-Type over bytes that are no image', '/html-as-png.png', /PNG, JPEG, GIF or WebP/],
      ['an error status', '/missing.png', /404/],
    ])('refuses %s', async (_label, path, message) => {
      const before = await rowCount();
      const res = await fetchImage(t, writer.jwt, `${base}${path}`);
      expectUrlRefused(res);
      expect(res.body.message).toMatch(message);
      await expectNothingLeftBehind(before);
    });

    it.each([
      ['streamed past the limit', '/huge.png'],
      ['declared over the limit', '/huge-declared.png'],
    ])('refuses an image %s and keeps none of it', async (_label, path) => {
      const before = await rowCount();
      const res = await fetchImage(t, writer.jwt, `${base}${path}`);
      expectUrlRefused(res);
      expect(res.body.message).toContain(String(MAX_BYTES));
      await expectNothingLeftBehind(before);
    });

    it('gives up on a server that is too slow within the time limit', async () => {
      const before = await rowCount();
      const started = Date.now();
      const res = await fetchImage(t, writer.jwt, `${base}/slow.png`);
      const elapsed = Date.now() - started;
      expectUrlRefused(res);
      expect(res.body.message).toContain(`${FETCH_TIMEOUT_MS} ms`);
      expect(elapsed).toBeGreaterThanOrEqual(FETCH_TIMEOUT_MS - 50);
      expect(elapsed).toBeLessThan(FETCH_TIMEOUT_MS + 2000);
      await expectNothingLeftBehind(before);
    });

    it('validates the body: url is required and must be a string', async () => {
      const missing = await t.http().post('/v1/files/addimagefromurl').set('authorization', writer.jwt).send({});
      expectError(missing, 400, 'error_validation');
      expect(missing.body.details).toEqual(expect.arrayContaining([{ field: 'url', message: expect.any(String) }]));
      const number = await t
        .http()
        .post('/v1/files/addimagefromurl')
        .set('authorization', writer.jwt)
        .send({ url: 42 });
      expectError(number, 400, 'error_validation');
    });
  });

  it('documents the routes, the multipart body, the download and their error answers', async () => {
    const doc = (await t.http().get('/docs/openapi.json').expect(200)).body as {
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, unknown> }; responses: Record<string, unknown> }>
      >;
    };
    const uploadOp = doc.paths['/v1/files'].post;
    expect(Object.keys(uploadOp.requestBody!.content)).toEqual(['multipart/form-data']);
    expect(Object.keys(uploadOp.responses)).toEqual(
      expect.arrayContaining(['201', '400', '401', '403', '413', '415', '429']),
    );
    const fetchOp = doc.paths['/v1/files/addimagefromurl'].post;
    expect(Object.keys(fetchOp.requestBody!.content)).toEqual(['application/json']);
    expect(Object.keys(fetchOp.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403', '429']));
    expect(Object.keys(doc.paths['/v1/files']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/v1/files/{id}']).sort()).toEqual(['delete', 'get']);
    const contentOp = doc.paths['/v1/files/{id}/content'].get as unknown as {
      responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
    };
    expect(Object.keys(contentOp.responses['200'].content!)).toEqual(['*/*']);
    expect(Object.keys(contentOp.responses['200'].headers!)).toEqual(
      expect.arrayContaining(['Content-Disposition', 'X-Content-Type-Options', 'Content-Length']),
    );
    for (const op of [contentOp, doc.paths['/v1/files/{id}'].delete]) {
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403', '404', '429']));
    }
  });
});
