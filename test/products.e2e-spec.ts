import { ManualClock } from './support/manual-clock';
import { currentTestDatabase } from './support/databases';
import { createAccount, createCompanies, login, authed } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';
import { expectError, expectInvalid } from './support/expectations';

let suffix = 0;
/** Distinct SKUs within one run of the suite. */
const uniqueSuffix = () => `${process.pid}-${++suffix}`;

describe(`products (${currentTestDatabase()})`, () => {
  let t: TestApp;
  let clock: ManualClock;
  let companyA: { id: number };
  let companyB: { id: number };
  let writerA: string;
  let readerA: string;
  let writerB: string;

  const as = (credential: string) => authed(t, credential);

  const create = async (jwt: string, body: { name: string; sku: string; price: number }) => {
    const res = await as(jwt).post('/v1/products', body);
    expect(res.status).toBe(201);
    return res.body as { id: number; name: string; sku: string; price: number; created_at: string; updated_at: string };
  };

  beforeAll(async () => {
    clock = new ManualClock('2026-11-21T03:00:00Z');
    t = await startTestApp({ clock });
    [companyA, companyB] = await createCompanies(t, 'Alpha', 'Beta');
    writerA = (await login(t, await createAccount(t, [companyA.id], ['products:read', 'products:write']), companyA.id))
      .jwt;
    readerA = (await login(t, await createAccount(t, [companyA.id], ['products:read']), companyA.id)).jwt;
    writerB = (await login(t, await createAccount(t, [companyB.id], ['products:read', 'products:write']), companyB.id))
      .jwt;
  });
  afterAll(() => t?.close());

  describe('happy path', () => {
    it('creates (201), gets, replaces (PUT) and deletes (204) a product', async () => {
      const created = await create(writerA, { name: '  Green tea 100 g ', sku: 'TEA-GRN-100', price: 1250 });
      expect(created).toEqual({
        id: expect.any(Number),
        name: 'Green tea 100 g',
        sku: 'TEA-GRN-100',
        price: 1250,
        created_at: '2026-11-21T03:00:00.000Z',
        updated_at: '2026-11-21T03:00:00.000Z',
      });

      const got = await as(readerA).get(`/v1/products/${created.id}`).expect(200);
      expect(got.body).toEqual(created);

      clock.advance(60_000);
      const replaced = await as(writerA)
        .put(`/v1/products/${created.id}`, { name: 'Green tea 250 g', sku: 'TEA-GRN-250', price: 2900 })
        .expect(200);
      expect(replaced.body).toEqual({
        ...created,
        name: 'Green tea 250 g',
        sku: 'TEA-GRN-250',
        price: 2900,
        updated_at: '2026-11-21T03:01:00.000Z',
      });
      expect((await as(readerA).get(`/v1/products/${created.id}`).expect(200)).body).toEqual(replaced.body);

      const deleted = await as(writerA).delete(`/v1/products/${created.id}`).expect(204);
      expect(deleted.text).toBe('');
      expectError(await as(readerA).get(`/v1/products/${created.id}`), 404, 'error_not_found');
      expectError(await as(writerA).delete(`/v1/products/${created.id}`), 404, 'error_not_found');
    });

    it('PUT may keep the same sku; a freed sku can be reused', async () => {
      const product = await create(writerA, { name: 'Mug', sku: 'MUG-1', price: 500 });
      await as(writerA).put(`/v1/products/${product.id}`, { name: 'Big mug', sku: 'MUG-1', price: 700 }).expect(200);
      await as(writerA).delete(`/v1/products/${product.id}`).expect(204);
      await create(writerA, { name: 'Mug again', sku: 'MUG-1', price: 0 });
    });

    it('lists by id in pages of per_page with the total, and filters by name (case-insensitive substring)', async () => {
      const [company] = await createCompanies(t, 'Lister');
      const jwt = (
        await login(t, await createAccount(t, [company.id], ['products:read', 'products:write']), company.id)
      ).jwt;
      const names = ['Earl Grey', 'green TEA', 'Coffee beans', 'Tea pot', '100% tea_leaves', 'Sugar'];
      const made = [];
      for (const [i, name] of names.entries()) made.push(await create(jwt, { name, sku: `SKU-${i}`, price: i * 100 }));

      const first = await as(jwt).get('/v1/products').expect(200);
      expect(first.body).toEqual({ data: made, page: 1, per_page: 20, total: 6 });

      const page2 = await as(jwt).get('/v1/products?page=2&per_page=4').expect(200);
      expect(page2.body).toEqual({ data: made.slice(4), page: 2, per_page: 4, total: 6 });
      const beyond = await as(jwt).get('/v1/products?page=5&per_page=4').expect(200);
      expect(beyond.body).toEqual({ data: [], page: 5, per_page: 4, total: 6 });

      const tea = await as(jwt).get('/v1/products?name=TeA').expect(200);
      expect(tea.body).toEqual({ data: [made[1], made[3], made[4]], page: 1, per_page: 20, total: 3 });
      const teaPage = await as(jwt).get('/v1/products?name=tea&per_page=2&page=2').expect(200);
      expect(teaPage.body).toEqual({ data: [made[4]], page: 2, per_page: 2, total: 3 });

      // LIKE wildcards in the filter match only themselves.
      expect(
        (
          await as(jwt)
            .get(`/v1/products?name=${encodeURIComponent('%')}`)
            .expect(200)
        ).body.data,
      ).toEqual([made[4]]);
      expect((await as(jwt).get('/v1/products?name=a_l').expect(200)).body.data).toEqual([made[4]]);
      expect((await as(jwt).get('/v1/products?name=a_p').expect(200)).body.total).toBe(0); // unescaped, `_` would match 'Tea pot'
    });
  });

  describe('validation: 400 error_validation naming the field', () => {
    const valid = { name: 'Valid', sku: 'VALID-1', price: 100 };

    it.each<[string, object, string[]]>([
      ['name missing', { sku: 'S-1', price: 1 }, ['name']],
      ['name blank', { ...valid, name: '   ' }, ['name']],
      ['name too long', { ...valid, name: 'x'.repeat(201) }, ['name']],
      ['name not a string', { ...valid, name: 42 }, ['name']],
      ['sku missing', { name: 'N', price: 1 }, ['sku']],
      ['sku with a space', { ...valid, sku: 'A B' }, ['sku']],
      ['sku too long', { ...valid, sku: 'S'.repeat(65) }, ['sku']],
      ['price missing', { name: 'N', sku: 'S-2' }, ['price']],
      ['price negative', { ...valid, price: -1 }, ['price']],
      ['price fractional', { ...valid, price: 12.5 }, ['price']],
      ['price a string', { ...valid, price: '100' }, ['price']],
      ['price too large', { ...valid, price: 1_000_000_001 }, ['price']],
      ['an unknown field', { ...valid, currency: 'EUR' }, ['currency']],
      ['everything wrong', { name: '', sku: '', price: null }, ['name', 'sku', 'price']],
    ])('POST with %s', async (_label, body, fields) => {
      expectInvalid(await as(writerA).post('/v1/products', body), ...fields);
    });

    it('PUT is a full replace: a missing field is refused, not kept', async () => {
      const product = await create(writerA, { name: 'Full', sku: 'FULL-1', price: 1 });
      expectInvalid(await as(writerA).put(`/v1/products/${product.id}`, { name: 'Only name' }), 'sku', 'price');
      expectInvalid(await as(writerA).put(`/v1/products/${product.id}`, { ...valid, id: 99 }), 'id');
      expect((await as(readerA).get(`/v1/products/${product.id}`).expect(200)).body).toEqual(product);
    });

    it.each([
      ['page=0', ['page']],
      ['per_page=101', ['per_page']],
      ['page=abc', ['page']],
      ['name=', ['name']],
      ['name=a&name=b', ['name']],
      ['sort=name', ['sort']],
    ])('GET /v1/products?%s', async (query, fields) => {
      expectInvalid(await as(readerA).get(`/v1/products?${query}`), ...fields);
    });

    it.each(['abc', '0', '-1', '1.5', '1e3', '007', '2147483648', '99999999999999999999'])(
      'an id that cannot name a product (%s) → 404 error_not_found',
      async (id) => {
        expectError(await as(readerA).get(`/v1/products/${id}`), 404, 'error_not_found');
        expectError(await as(writerA).put(`/v1/products/${id}`, valid), 404, 'error_not_found');
        expectError(await as(writerA).patch(`/v1/products/${id}`, { price: 1 }), 404, 'error_not_found');
        expectError(await as(writerA).delete(`/v1/products/${id}`), 404, 'error_not_found');
      },
    );
  });

  describe('PATCH /v1/products/{id}: only the fields sent change', () => {
    it.each<[string, object]>([
      ['name', { name: '  Black tea 100 g ' }],
      ['sku', { sku: 'TEA-BLK-100' }],
      ['price', { price: 0 }],
      ['name and price', { name: 'Black tea', price: 990 }],
    ])('changes only %s, and updated_at', async (_label, body) => {
      const product = await create(writerA, { name: 'Patch me', sku: `PATCH-${uniqueSuffix()}`, price: 1250 });
      clock.advance(1000);
      const res = await as(writerA).patch(`/v1/products/${product.id}`, body).expect(200);
      const trimmed = Object.fromEntries(
        Object.entries(body).map(([key, value]) => [key, typeof value === 'string' ? value.trim() : value]),
      );
      const expected = { ...product, ...trimmed, updated_at: clock.now().toISOString() };
      expect(res.body).toEqual(expected);
      expect((await as(readerA).get(`/v1/products/${product.id}`).expect(200)).body).toEqual(expected);
    });

    it('may send the sku the product already has', async () => {
      const product = await create(writerA, { name: 'Same sku', sku: 'SAME-SKU-1', price: 5 });
      const res = await as(writerA).patch(`/v1/products/${product.id}`, { sku: 'SAME-SKU-1', price: 6 }).expect(200);
      expect(res.body).toMatchObject({ sku: 'SAME-SKU-1', price: 6, name: 'Same sku' });
    });

    it.each<[string, object | undefined, string[]]>([
      ['an empty body', {}, ['body']],
      ['no body at all', undefined, ['body']],
      ['name null', { name: null }, ['name']],
      ['sku null', { sku: null }, ['sku']],
      ['price null', { price: null }, ['price']],
      ['name blank', { name: '  ' }, ['name']],
      ['sku with a space', { sku: 'A B' }, ['sku']],
      ['price fractional', { price: 1.5 }, ['price']],
      ['price too large', { price: 1_000_000_001 }, ['price']],
      ['an unknown field', { price: 1, currency: 'EUR' }, ['currency']],
      ['the id', { id: 99 }, ['id']],
    ])('refuses %s with 400 naming the field, and changes nothing', async (_label, body, fields) => {
      const product = await create(writerA, { name: 'Unchanged', sku: `KEEP-${uniqueSuffix()}`, price: 7 });
      clock.advance(1000);
      expectInvalid(await as(writerA).patch(`/v1/products/${product.id}`, body), ...fields);
      expect((await as(readerA).get(`/v1/products/${product.id}`).expect(200)).body).toEqual(product);
    });
  });

  describe('a sku already used in the company: 409 error_conflict, nothing changes', () => {
    it('on POST, PUT and PATCH; the product keeps its values', async () => {
      await create(writerA, { name: 'Original', sku: 'DUP-1', price: 1 });
      expectError(
        await as(writerA).post('/v1/products', { name: 'Copy', sku: 'DUP-1', price: 2 }),
        409,
        'error_conflict',
      );
      expect((await as(readerA).get('/v1/products?name=Copy').expect(200)).body.total).toBe(0);

      const other = await create(writerA, { name: 'Other', sku: 'DUP-2', price: 3 });
      clock.advance(1000);
      expectError(
        await as(writerA).put(`/v1/products/${other.id}`, { name: 'Renamed', sku: 'DUP-1', price: 4 }),
        409,
        'error_conflict',
      );
      expectError(
        await as(writerA).patch(`/v1/products/${other.id}`, { name: 'Renamed', sku: 'DUP-1' }),
        409,
        'error_conflict',
      );
      expect((await as(readerA).get(`/v1/products/${other.id}`).expect(200)).body).toEqual(other);
    });

    it('SKUs are case-sensitive and unique per company only', async () => {
      await create(writerA, { name: 'Upper', sku: 'CASE-1', price: 1 });
      await create(writerA, { name: 'Lower', sku: 'case-1', price: 1 });
      await create(writerB, { name: 'Theirs', sku: 'CASE-1', price: 1 });
      const mine = await create(writerB, { name: 'Mine', sku: 'CASE-2', price: 1 });
      await as(writerB).patch(`/v1/products/${mine.id}`, { sku: 'case-1' }).expect(200);
    });

    it('concurrent creates of one sku: exactly one 201, the others 409, never a 5xx', async () => {
      const sku = `RACE-${uniqueSuffix()}`;
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => as(writerA).post('/v1/products', { name: `Racer ${i}`, sku, price: i })),
      );
      const statuses = results.map((res) => res.status).sort();
      expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
      for (const res of results.filter((r) => r.status === 409)) expectError(res, 409, 'error_conflict');
      const listed = (await as(readerA).get('/v1/products?name=Racer&per_page=100').expect(200)).body.data;
      expect(listed.filter((p: { sku: string }) => p.sku === sku)).toHaveLength(1);
    });

    it('concurrent PATCHes of two products to one free sku: one 200, one 409', async () => {
      const sku = `RACE-${uniqueSuffix()}`;
      const first = await create(writerA, { name: 'Racer A', sku: `${sku}-A`, price: 1 });
      const second = await create(writerA, { name: 'Racer B', sku: `${sku}-B`, price: 1 });
      const results = await Promise.all([
        as(writerA).patch(`/v1/products/${first.id}`, { sku }),
        as(writerA).patch(`/v1/products/${second.id}`, { sku }),
      ]);
      expect(results.map((res) => res.status).sort()).toEqual([200, 409]);
    });
  });

  describe('credentials and permissions', () => {
    it('no token → 401 error_jwt_is_required on every route', async () => {
      expectError(await t.http().get('/v1/products'), 401, 'error_jwt_is_required');
      expectError(
        await t.http().post('/v1/products').send({ name: 'x', sku: 'x', price: 1 }),
        401,
        'error_jwt_is_required',
      );
      expectError(await t.http().get('/v1/products/1'), 401, 'error_jwt_is_required');
      expectError(
        await t.http().put('/v1/products/1').send({ name: 'x', sku: 'x', price: 1 }),
        401,
        'error_jwt_is_required',
      );
      expectError(await t.http().patch('/v1/products/1').send({ price: 1 }), 401, 'error_jwt_is_required');
      expectError(await t.http().delete('/v1/products/1'), 401, 'error_jwt_is_required');
    });

    it('products:read can read but not write → 403 error_permission_denied, and nothing changes', async () => {
      const product = await create(writerA, { name: 'Guarded', sku: 'GUARD-1', price: 10 });
      await as(readerA).get('/v1/products').expect(200);
      await as(readerA).get(`/v1/products/${product.id}`).expect(200);
      expectError(
        await as(readerA).post('/v1/products', { name: 'No', sku: 'NO-1', price: 1 }),
        403,
        'error_permission_denied',
      );
      expectError(
        await as(readerA).put(`/v1/products/${product.id}`, { name: 'No', sku: 'NO-1', price: 1 }),
        403,
        'error_permission_denied',
      );
      expectError(
        await as(readerA).patch(`/v1/products/${product.id}`, { name: 'No' }),
        403,
        'error_permission_denied',
      );
      expectError(await as(readerA).delete(`/v1/products/${product.id}`), 403, 'error_permission_denied');
      expect((await as(readerA).get(`/v1/products/${product.id}`).expect(200)).body).toEqual(product);
      expect((await as(readerA).get('/v1/products?name=No').expect(200)).body.total).toBe(0);
    });

    it('a token without products:read cannot list → 403', async () => {
      const ordersOnly = (await login(t, await createAccount(t, [companyA.id], ['orders:read']), companyA.id)).jwt;
      expectError(await as(ordersOnly).get('/v1/products'), 403, 'error_permission_denied');
    });
  });

  describe('isolation between companies', () => {
    it("company A never sees, changes or deletes company B's products: list, get, update, delete", async () => {
      const theirs = await create(writerB, { name: 'Secret recipe', sku: 'SECRET-1', price: 999 });

      const listA = await as(writerA).get('/v1/products?per_page=100').expect(200);
      expect(listA.body.data.map((p: { id: number }) => p.id)).not.toContain(theirs.id);
      expect((await as(writerA).get('/v1/products?name=secret').expect(200)).body).toMatchObject({
        data: [],
        total: 0,
      });

      expectError(await as(writerA).get(`/v1/products/${theirs.id}`), 404, 'error_not_found');
      expectError(
        await as(writerA).put(`/v1/products/${theirs.id}`, { name: 'Stolen', sku: 'SECRET-1', price: 0 }),
        404,
        'error_not_found',
      );
      expectError(await as(writerA).patch(`/v1/products/${theirs.id}`, { price: 0 }), 404, 'error_not_found');
      expectError(await as(writerA).delete(`/v1/products/${theirs.id}`), 404, 'error_not_found');

      // Untouched, as B sees it.
      expect((await as(writerB).get(`/v1/products/${theirs.id}`).expect(200)).body).toEqual(theirs);
    });

    it('an employee of both companies sees the products of the company the token is bound to', async () => {
      const both = await createAccount(t, [companyA.id, companyB.id], ['products:read']);
      const inB = (await login(t, both, companyB.id)).jwt;
      const inA = (await login(t, both, companyA.id)).jwt;
      const ofB = (await as(inB).get('/v1/products?per_page=100').expect(200)).body.data as { id: number }[];
      const ofA = (await as(inA).get('/v1/products?per_page=100').expect(200)).body.data as { id: number }[];
      expect(ofB.length).toBeGreaterThan(0);
      expect(ofA.filter((a) => ofB.some((b) => b.id === a.id))).toEqual([]);
    });
  });
});
