import { createHash } from 'node:crypto';
import type { Response } from 'supertest';
import { ManualClock } from './support/manual-clock';
import { createAccount, createCompanies, login, authed } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';
import { expectError } from './support/expectations';

const BASE = '/v1/marketingconversations';
const tokenHash = (authorization: string) => createHash('sha256').update(authorization).digest('hex').slice(0, 16);

/** A 400 error_validation whose details name exactly these fields (each at least once). */
function expectInvalid(res: Response, fields: string[]) {
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: ['error_validation'] });
  expect(res.body.details).toEqual(
    expect.arrayContaining(fields.map((field) => ({ field, message: expect.any(String) }))),
  );
  expect([...new Set((res.body.details as Array<{ field: string }>).map((d) => d.field))].sort()).toEqual(
    [...fields].sort(),
  );
}

describe('marketing conversations', () => {
  let t: TestApp;
  let clock: ManualClock;
  let alpha: { id: number };
  let beta: { id: number };
  /** Tokens of alpha: read+write, read only, write only, neither; and one of beta with read+write. */
  let writer: string;
  let writerId: number;
  let reader: string;
  let writeOnly: string;
  let unrelated: string;
  let betaWriter: string;

  const as = (credential: string) => authed(t, credential);

  beforeAll(async () => {
    clock = new ManualClock('2026-11-21T03:00:00Z');
    t = await startTestApp({ clock });
    [alpha, beta] = await createCompanies(t, 'Alpha', 'Beta');
    const writerAccount = await createAccount(
      t,
      [alpha.id],
      ['marketingconversations:read', 'marketingconversations:write'],
    );
    writerId = writerAccount.id;
    writer = (await login(t, writerAccount, alpha.id)).jwt;
    reader = (await login(t, await createAccount(t, [alpha.id], ['marketingconversations:read']), alpha.id)).jwt;
    writeOnly = (await login(t, await createAccount(t, [alpha.id], ['marketingconversations:write']), alpha.id)).jwt;
    unrelated = (await login(t, await createAccount(t, [alpha.id], ['users:read', 'products:write']), alpha.id)).jwt;
    betaWriter = (await login(t, await createAccount(t, [beta.id], ['*']), beta.id)).jwt;
  });
  afterAll(() => t?.close());

  describe('happy path', () => {
    let conversationId: number;

    it('opens a conversation: 201 with the stored record', async () => {
      const res = await as(writer)
        .post(BASE, { subject: '  Spring sale follow-up  ', channel: 'email', customer_ref: 'crm-4711' })
        .expect(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        subject: 'Spring sale follow-up',
        channel: 'email',
        customer_ref: 'crm-4711',
        created_by: writerId,
        created_at: '2026-11-21T03:00:00.000Z',
        last_message_at: null,
        message_count: 0,
      });
      conversationId = res.body.id;
      expect((await as(reader).get(`${BASE}/${conversationId}`).expect(200)).body).toEqual(res.body);
    });

    it('customer_ref is optional (absent or null)', async () => {
      for (const body of [
        { subject: 'No ref', channel: 'sms' },
        { subject: 'Null ref', channel: 'chat', customer_ref: null },
      ]) {
        const res = await as(writer).post(BASE, body).expect(201);
        expect(res.body).toMatchObject({ subject: body.subject, channel: body.channel, customer_ref: null });
      }
    });

    it('records messages and lists them oldest first, paginated', async () => {
      const sent = [];
      for (const [i, direction] of (['inbound', 'outbound', 'inbound'] as const).entries()) {
        clock.advance(1000);
        const res = await as(writeOnly)
          .post(`${BASE}/${conversationId}/messages`, { body: `message ${i}`, direction })
          .expect(201);
        expect(res.body).toEqual({
          id: expect.any(Number),
          conversation_id: conversationId,
          direction,
          body: `message ${i}`,
          created_by: expect.any(Number),
          created_at: clock.now().toISOString(),
        });
        sent.push(res.body);
      }
      // Equal timestamps still come back in the order they were recorded.
      await as(writer)
        .post(`${BASE}/${conversationId}/messages`, { body: 'same instant', direction: 'outbound' })
        .expect(201);

      const all = await as(reader).get(`${BASE}/${conversationId}/messages`).expect(200);
      expect(all.body).toEqual({ data: expect.any(Array), page: 1, per_page: 20, total: 4 });
      expect(all.body.data.map((m: { body: string }) => m.body)).toEqual([
        'message 0',
        'message 1',
        'message 2',
        'same instant',
      ]);
      expect(all.body.data.slice(0, 3)).toEqual(sent);

      const second = await as(reader).get(`${BASE}/${conversationId}/messages?page=2&per_page=3`).expect(200);
      expect(second.body).toEqual({
        data: [expect.objectContaining({ body: 'same instant' })],
        page: 2,
        per_page: 3,
        total: 4,
      });

      const conversation = await as(reader).get(`${BASE}/${conversationId}`).expect(200);
      expect(conversation.body).toMatchObject({ message_count: 4, last_message_at: clock.now().toISOString() });
    });

    it('lists the company’s conversations newest first in the page envelope', async () => {
      const res = await as(reader).get(BASE).expect(200);
      expect(res.body).toEqual({ data: expect.any(Array), page: 1, per_page: 20, total: 3 });
      expect(res.body.data.map((c: { subject: string }) => c.subject)).toEqual([
        'Null ref',
        'No ref',
        'Spring sale follow-up',
      ]);
      const page = await as(reader).get(`${BASE}?page=2&per_page=2`).expect(200);
      expect(page.body).toEqual({
        data: [expect.objectContaining({ id: conversationId })],
        page: 2,
        per_page: 2,
        total: 3,
      });
      expect((await as(reader).get(`${BASE}?page=9`).expect(200)).body).toEqual({
        data: [],
        page: 9,
        per_page: 20,
        total: 3,
      });
    });
  });

  describe('validation: 400 error_validation naming each bad field', () => {
    let id: number;
    beforeAll(async () => {
      id = (await as(writer).post(BASE, { subject: 'Validation target', channel: 'chat' }).expect(201)).body.id;
    });

    it.each<[string, object, string[]]>([
      ['an empty body', {}, ['subject', 'channel']],
      ['an empty subject', { subject: '', channel: 'email' }, ['subject']],
      ['a blank subject', { subject: '   ', channel: 'email' }, ['subject']],
      ['a subject of 201 characters', { subject: 'x'.repeat(201), channel: 'email' }, ['subject']],
      ['a subject that is not a string', { subject: 42, channel: 'email' }, ['subject']],
      ['a subject with a NUL character', { subject: 'a\u0000b', channel: 'email' }, ['subject']],
      ['an unknown channel', { subject: 'Hi', channel: 'fax' }, ['channel']],
      [
        'a customer_ref of 201 characters',
        { subject: 'Hi', channel: 'sms', customer_ref: 'r'.repeat(201) },
        ['customer_ref'],
      ],
      ['a customer_ref that is not a string', { subject: 'Hi', channel: 'sms', customer_ref: 7 }, ['customer_ref']],
      ['an unknown field', { subject: 'Hi', channel: 'sms', priority: 'high' }, ['priority']],
      [
        'several problems at once',
        { subject: '', channel: 'fax', company_id: 2 },
        ['subject', 'channel', 'company_id'],
      ],
    ])('POST /v1/marketingconversations with %s', async (_label, body, fields) => {
      expectInvalid(await as(writer).post(BASE, body), fields);
    });

    it('accepts the boundaries: subject of 1 and 200 characters', async () => {
      await as(writer).post(BASE, { subject: 'x', channel: 'email' }).expect(201);
      await as(writer)
        .post(BASE, { subject: 's'.repeat(200), channel: 'email', customer_ref: 'r'.repeat(200) })
        .expect(201);
    });

    it.each<[string, object, string[]]>([
      ['an empty body', {}, ['body', 'direction']],
      ['an empty message', { body: '', direction: 'inbound' }, ['body']],
      ['a message of 5001 characters', { body: 'm'.repeat(5001), direction: 'inbound' }, ['body']],
      ['a blank message', { body: ' \n ', direction: 'inbound' }, ['body']],
      ['an unknown direction', { body: 'Hi', direction: 'sideways' }, ['direction']],
      ['an unknown field', { body: 'Hi', direction: 'outbound', sender: 'me' }, ['sender']],
    ])('POST /v1/marketingconversations/{id}/messages with %s', async (_label, body, fields) => {
      expectInvalid(await as(writer).post(`${BASE}/${id}/messages`, body), fields);
    });

    it('accepts a message of exactly 5000 characters', async () => {
      await as(writer)
        .post(`${BASE}/${id}/messages`, { body: 'm'.repeat(5000), direction: 'outbound' })
        .expect(201);
    });

    it.each([
      ['per_page=0', ['per_page']],
      ['per_page=101', ['per_page']],
      ['page=0', ['page']],
      ['page=abc', ['page']],
      ['sort=id', ['sort']],
    ])('list query %s', async (query, fields) => {
      expectInvalid(await as(reader).get(`${BASE}?${query}`), fields);
      expectInvalid(await as(reader).get(`${BASE}/${id}/messages?${query}`), fields);
    });

    it('refuses a body that is not JSON', async () => {
      const res = await t.http().post(BASE).set('authorization', writer).set('content-type', 'text/plain').send('hi');
      expectError(res, 415, 'error_unsupported_media_type');
    });
  });

  describe('ids', () => {
    it.each(['abc', '0', '-1', '1e3', '007', '1.5', '99999999999', '2147483648'])(
      'a malformed id %p is 404 error_not_found on every route with an id',
      async (id) => {
        expectError(await as(writer).get(`${BASE}/${id}`), 404, 'error_not_found');
        expectError(await as(writer).get(`${BASE}/${id}/messages`), 404, 'error_not_found');
        expectError(
          await as(writer).post(`${BASE}/${id}/messages`, { body: 'Hi', direction: 'inbound' }),
          404,
          'error_not_found',
        );
      },
    );

    it('an id that exists nowhere is 404 error_not_found', async () => {
      expectError(await as(writer).get(`${BASE}/2147483647`), 404, 'error_not_found');
      expectError(
        await as(writer).post(`${BASE}/2147483647/messages`, { body: 'Hi', direction: 'inbound' }),
        404,
        'error_not_found',
      );
    });
  });

  describe('permissions', () => {
    let id: number;
    beforeAll(async () => {
      id = (await as(writer).post(BASE, { subject: 'Permission target', channel: 'sms' }).expect(201)).body.id;
    });

    const routes = () => [
      { method: 'get' as const, path: BASE, needs: 'read' },
      { method: 'get' as const, path: `${BASE}/${id}`, needs: 'read' },
      { method: 'get' as const, path: `${BASE}/${id}/messages`, needs: 'read' },
      { method: 'post' as const, path: BASE, needs: 'write', body: { subject: 'Hi', channel: 'sms' } },
      {
        method: 'post' as const,
        path: `${BASE}/${id}/messages`,
        needs: 'write',
        body: { body: 'Hi', direction: 'inbound' },
      },
    ];

    it('answers 401 error_jwt_is_required without a credential', async () => {
      for (const route of routes()) {
        expectError(await t.http()[route.method](route.path).send(route.body), 401, 'error_jwt_is_required');
      }
    });

    it('GET needs marketingconversations:read, POST needs marketingconversations:write (403 otherwise)', async () => {
      for (const route of routes()) {
        const call = (token: string) =>
          route.method === 'get' ? as(token).get(route.path) : as(token).post(route.path, route.body);
        const allowed = route.needs === 'read' ? reader : writeOnly;
        const refused = route.needs === 'read' ? writeOnly : reader;
        expect({ route: `${route.method} ${route.path}`, status: (await call(allowed)).status }).toEqual({
          route: `${route.method} ${route.path}`,
          status: route.method === 'get' ? 200 : 201,
        });
        expectError(await call(refused), 403, 'error_permission_denied');
        expectError(await call(unrelated), 403, 'error_permission_denied');
      }
    });

    it('checks the permission before the body: a refused caller learns nothing from validation', async () => {
      expectError(await as(reader).post(BASE, { nonsense: true }), 403, 'error_permission_denied');
    });
  });

  describe('company isolation', () => {
    let betaId: number;
    let alphaId: number;

    beforeAll(async () => {
      betaId = (await as(betaWriter).post(BASE, { subject: 'Beta secret', channel: 'email' }).expect(201)).body.id;
      await as(betaWriter).post(`${BASE}/${betaId}/messages`, { body: 'beta only', direction: 'inbound' }).expect(201);
      alphaId = (await as(writer).post(BASE, { subject: 'Alpha own', channel: 'email' }).expect(201)).body.id;
    });

    it('a token of company A never sees company B’s conversations in its list', async () => {
      const all = await as(writer).get(`${BASE}?per_page=100`).expect(200);
      const ids = all.body.data.map((c: { id: number }) => c.id);
      expect(ids).toContain(alphaId);
      expect(ids).not.toContain(betaId);
      expect(all.body.total).toBe(ids.length);
      const betaList = await as(betaWriter).get(BASE).expect(200);
      expect(betaList.body).toEqual({
        data: [expect.objectContaining({ id: betaId, subject: 'Beta secret' })],
        page: 1,
        per_page: 20,
        total: 1,
      });
    });

    it('reading, listing messages of, or posting to company B’s conversation answers 404, as if it did not exist', async () => {
      const missing = await as(writer).get(`${BASE}/2147483647`);
      for (const res of [
        await as(writer).get(`${BASE}/${betaId}`),
        await as(writer).get(`${BASE}/${betaId}/messages`),
        await as(writer).post(`${BASE}/${betaId}/messages`, { body: 'intrusion', direction: 'outbound' }),
      ]) {
        expectError(res, 404, 'error_not_found');
        expect(res.body).toEqual(missing.body);
      }
      // Nothing reached company B's conversation.
      const messages = await as(betaWriter).get(`${BASE}/${betaId}/messages`).expect(200);
      expect(messages.body.data.map((m: { body: string }) => m.body)).toEqual(['beta only']);
      expect((await as(betaWriter).get(`${BASE}/${betaId}`).expect(200)).body.message_count).toBe(1);
      // And the other way round.
      expectError(await as(betaWriter).get(`${BASE}/${alphaId}`), 404, 'error_not_found');
    });

    it('the same employee sees each company only through a token of that company', async () => {
      const both = await createAccount(t, [alpha.id, beta.id], ['marketingconversations:read']);
      const inAlpha = (await login(t, both, alpha.id)).jwt;
      const inBeta = (await login(t, both, beta.id)).jwt;
      await as(inBeta).get(`${BASE}/${betaId}`).expect(200);
      expectError(await as(inAlpha).get(`${BASE}/${betaId}`), 404, 'error_not_found');
    });
  });

  describe('rate-limit headers', () => {
    it('carries X-Rate-Limit-* with the marketingconversations group and the token hash; POST and GET count apart', async () => {
      const post = await as(writer).post(BASE, { subject: 'Headers', channel: 'chat' }).expect(201);
      const get = await as(writer).get(BASE).expect(200);
      // The default test environment multiplies the table by 1000: POST 60 → 60000, GET 30 → 30000.
      expect(post.headers['x-rate-limit-limit']).toBe(String(60 * 1000));
      expect(get.headers['x-rate-limit-limit']).toBe(String(30 * 1000));
      expect(post.headers['x-rate-limit-identifier']).toMatch(
        new RegExp(`^[^|]+\\|POST\\|marketingconversations\\|${tokenHash(writer)}$`),
      );
      expect(get.headers['x-rate-limit-identifier']).toMatch(
        new RegExp(`^[^|]+\\|GET\\|marketingconversations\\|${tokenHash(writer)}$`),
      );
      for (const res of [post, get]) expect(res.headers['x-rate-limit-remaining']).toMatch(/^\d+$/);
      // Errors carry them too.
      const refused = await t.http().get(`${BASE}/1`);
      expect(refused.status).toBe(401);
      expect(refused.headers['x-rate-limit-identifier']).toMatch(/^[^|]+\|GET\|marketingconversations\|-$/);
    });
  });
});

describe('marketing conversations rate limit (unscaled table)', () => {
  let t: TestApp;
  let clock: ManualClock;

  beforeAll(async () => {
    clock = new ManualClock('2026-11-21T03:00:00Z');
    t = await startTestApp({ clock, env: { RATE_LIMIT_SCALE: '1' } });
  });
  afterAll(() => t?.close());

  it('POST has a bucket of 60 per 3 s, GET 30; the 61st POST and the 31st GET at once answer 429', async () => {
    const [company] = await createCompanies(t, 'Limited');
    const token = (await login(t, await createAccount(t, [company.id], ['*']), company.id)).jwt;
    const post = (path: string, body: object) => t.http().post(path).set('authorization', token).send(body);
    const identifier = (method: string) =>
      new RegExp(`^[^|]+\\|${method}\\|marketingconversations\\|${tokenHash(token)}$`);

    // Creating the conversation and adding messages share the group's POST counter.
    const created = await post(BASE, { subject: 'Burst', channel: 'chat' }).expect(201);
    for (let i = 2; i <= 60; i++) {
      const res = await post(`${BASE}/${created.body.id}/messages`, { body: `m${i}`, direction: 'outbound' });
      expect({
        i,
        status: res.status,
        limit: res.headers['x-rate-limit-limit'],
        remaining: res.headers['x-rate-limit-remaining'],
      }).toEqual({
        i,
        status: 201,
        limit: '60',
        remaining: String(60 - i),
      });
      expect(res.headers['x-rate-limit-identifier']).toMatch(identifier('POST'));
    }
    const limited = await post(`${BASE}/${created.body.id}/messages`, { body: 'one too many', direction: 'outbound' });
    expect({
      status: limited.status,
      text: limited.text,
      remaining: limited.headers['x-rate-limit-remaining'],
    }).toEqual({
      status: 429,
      text: '["error_rate_limit_exceed"]',
      remaining: '0',
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    for (let i = 1; i <= 30; i++) {
      const res = await t.http().get(BASE).set('authorization', token);
      expect({ i, status: res.status, limit: res.headers['x-rate-limit-limit'] }).toEqual({
        i,
        status: 200,
        limit: '30',
      });
      expect(res.headers['x-rate-limit-identifier']).toMatch(identifier('GET'));
    }
    expect((await t.http().get(BASE).set('authorization', token)).status).toBe(429);

    // The limited request had no effect: 59 messages, and 3 s later the bucket is empty again.
    clock.advance(3000);
    const messages = await t
      .http()
      .get(`${BASE}/${created.body.id}/messages?per_page=1`)
      .set('authorization', token)
      .expect(200);
    expect(messages.body.total).toBe(59);
    const again = await post(`${BASE}/${created.body.id}/messages`, {
      body: 'bucket drained',
      direction: 'inbound',
    }).expect(201);
    expect(again.headers['x-rate-limit-remaining']).toBe('59');
  });
});
