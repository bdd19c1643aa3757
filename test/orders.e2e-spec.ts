import { DataSource } from 'typeorm';
import { ManualClock } from './support/manual-clock';
import { currentTestDatabase } from './support/databases';
import { createAccount, createCompanies, login, authed } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';
import { expectError, expectInvalid } from './support/expectations';

interface Product {
  id: number;
  name: string;
  sku: string;
  price: number;
}

describe(`orders (${currentTestDatabase()})`, () => {
  let t: TestApp;
  let clock: ManualClock;
  let db: DataSource;
  let companyA: { id: number };
  let companyB: { id: number };
  let ownerA: string;
  let readerA: string;
  let ownerB: string;
  let tea: Product;
  let mug: Product;
  let theirs: Product;

  const as = (credential: string) => authed(t, credential);

  const product = async (jwt: string, name: string, sku: string, price: number): Promise<Product> => {
    const res = await as(jwt).post('/v1/products', { name, sku, price });
    expect(res.status).toBe(201);
    return res.body as Product;
  };

  const placeOrder = async (jwt: string, lines: { product_id: number; quantity: number }[]) => {
    const res = await as(jwt).post('/v1/orders', { lines });
    expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: expect.anything() });
    return res.body;
  };

  /** What is stored, read straight from the database: the proof that a refused order wrote nothing. */
  const stored = async () => {
    const [orders] = await db.query('SELECT count(*)::int AS n FROM sales_order');
    const [lines] = await db.query('SELECT count(*)::int AS n FROM sales_order_line');
    return { orders: orders.n as number, lines: lines.n as number };
  };

  beforeAll(async () => {
    clock = new ManualClock('2026-11-21T03:00:00Z');
    t = await startTestApp({ clock });
    db = t.app.get(DataSource);
    [companyA, companyB] = await createCompanies(t, 'Alpha', 'Beta');
    ownerA = (await login(t, await createAccount(t, [companyA.id], ['*']), companyA.id)).jwt;
    readerA = (await login(t, await createAccount(t, [companyA.id], ['orders:read', 'products:write']), companyA.id))
      .jwt;
    ownerB = (await login(t, await createAccount(t, [companyB.id], ['*']), companyB.id)).jwt;
    tea = await product(ownerA, 'Green tea', 'TEA-1', 1250);
    mug = await product(ownerA, 'Mug', 'MUG-1', 399);
    theirs = await product(ownerB, 'Their tea', 'TEA-1', 1);
  });
  afterAll(() => t?.close());

  describe('happy path', () => {
    it('places an order: the server copies unit prices and computes line totals and the total', async () => {
      const res = await as(ownerA).post('/v1/orders', {
        lines: [
          { product_id: tea.id, quantity: 2 },
          { product_id: mug.id, quantity: 3 },
          { product_id: tea.id, quantity: 1 },
        ],
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        status: 'open',
        total: 2500 + 1197 + 1250,
        lines: [
          { product_id: tea.id, name: 'Green tea', sku: 'TEA-1', unit_price: 1250, quantity: 2, line_total: 2500 },
          { product_id: mug.id, name: 'Mug', sku: 'MUG-1', unit_price: 399, quantity: 3, line_total: 1197 },
          { product_id: tea.id, name: 'Green tea', sku: 'TEA-1', unit_price: 1250, quantity: 1, line_total: 1250 },
        ],
        created_at: '2026-11-21T03:00:00.000Z',
        updated_at: '2026-11-21T03:00:00.000Z',
        cancelled_at: null,
      });
      expect((await as(readerA).get(`/v1/orders/${res.body.id}`).expect(200)).body).toEqual(res.body);
    });

    it('refuses prices or totals from the client (unknown fields)', async () => {
      const before = await stored();
      const res = await as(ownerA).post('/v1/orders', {
        lines: [{ product_id: tea.id, quantity: 1, unit_price: 1 }],
        total: 1,
      });
      expectInvalid(res, 'lines.0.unit_price', 'total');
      expect(await stored()).toEqual(before);
    });

    it('keeps the order as placed when the product is repriced, renamed and then deleted', async () => {
      const kettle = await product(ownerA, 'Kettle', 'KETTLE-1', 4500);
      const order = await placeOrder(ownerA, [{ product_id: kettle.id, quantity: 2 }]);

      await as(ownerA)
        .put(`/v1/products/${kettle.id}`, { name: 'Kettle XL', sku: 'KETTLE-2', price: 9900 })
        .expect(200);
      expect((await as(ownerA).get(`/v1/orders/${order.id}`).expect(200)).body).toEqual(order);

      await as(ownerA).delete(`/v1/products/${kettle.id}`).expect(204);
      const after = (await as(ownerA).get(`/v1/orders/${order.id}`).expect(200)).body;
      expect(after).toEqual({ ...order, lines: [{ ...order.lines[0], product_id: null }] });
      expect(after.lines[0]).toMatchObject({ name: 'Kettle', sku: 'KETTLE-1', unit_price: 4500, line_total: 9000 });
      expect(after.total).toBe(9000);
    });

    it('lists by id in pages with the total, optionally by status', async () => {
      const [company] = await createCompanies(t, 'Lister');
      const jwt = (await login(t, await createAccount(t, [company.id], ['*']), company.id)).jwt;
      const item = await product(jwt, 'Item', 'ITEM', 100);
      const orders = [];
      for (let i = 1; i <= 5; i++) orders.push(await placeOrder(jwt, [{ product_id: item.id, quantity: i }]));
      await as(jwt).put(`/v1/orders/${orders[1].id}`, { status: 'cancelled' }).expect(200);
      const current = await Promise.all(orders.map(async (o) => (await as(jwt).get(`/v1/orders/${o.id}`)).body));

      expect((await as(jwt).get('/v1/orders').expect(200)).body).toEqual({
        data: current,
        page: 1,
        per_page: 20,
        total: 5,
      });
      expect((await as(jwt).get('/v1/orders?page=2&per_page=2').expect(200)).body).toEqual({
        data: current.slice(2, 4),
        page: 2,
        per_page: 2,
        total: 5,
      });
      expect((await as(jwt).get('/v1/orders?status=cancelled').expect(200)).body).toEqual({
        data: [current[1]],
        page: 1,
        per_page: 20,
        total: 1,
      });
      expect((await as(jwt).get('/v1/orders?status=open&per_page=3').expect(200)).body).toMatchObject({ total: 4 });
      expect(current.map((o) => o.total)).toEqual([100, 200, 300, 400, 500]);
    });

    it('keeps totals exact at the limits (100 lines × 10 000 units × the highest price)', async () => {
      const dear = await product(ownerA, 'Dear', 'DEAR-1', 1_000_000_000);
      const order = await placeOrder(
        ownerA,
        Array.from({ length: 100 }, () => ({ product_id: dear.id, quantity: 10_000 })),
      );
      expect(order.lines).toHaveLength(100);
      expect(order.lines[99].line_total).toBe(10_000_000_000_000);
      expect(order.total).toBe(1_000_000_000_000_000);
      expect((await as(ownerA).get(`/v1/orders/${order.id}`).expect(200)).body.total).toBe(1_000_000_000_000_000);
    });
  });

  describe('cancel: PUT {"status": "cancelled"}', () => {
    it('cancels an open order once; cancelling again → 400 error_validation on status', async () => {
      const order = await placeOrder(ownerA, [{ product_id: mug.id, quantity: 1 }]);
      clock.advance(5_000);
      const cancelled = await as(ownerA).put(`/v1/orders/${order.id}`, { status: 'cancelled' }).expect(200);
      expect(cancelled.body).toEqual({
        ...order,
        status: 'cancelled',
        updated_at: clock.now().toISOString(),
        cancelled_at: clock.now().toISOString(),
      });
      expect((await as(readerA).get(`/v1/orders/${order.id}`).expect(200)).body).toEqual(cancelled.body);

      expectInvalid(await as(ownerA).put(`/v1/orders/${order.id}`, { status: 'cancelled' }), 'status');
      expect((await as(readerA).get(`/v1/orders/${order.id}`).expect(200)).body).toEqual(cancelled.body);
    });

    it('two concurrent cancels: exactly one succeeds', async () => {
      const order = await placeOrder(ownerA, [{ product_id: mug.id, quantity: 1 }]);
      const answers = await Promise.all(
        [1, 2].map(() => as(ownerA).put(`/v1/orders/${order.id}`, { status: 'cancelled' })),
      );
      expect(answers.map((res) => res.status).sort()).toEqual([200, 400]);
    });

    it.each<[string, object, string[]]>([
      ['back to open', { status: 'open' }, ['status']],
      ['an unknown status', { status: 'shipped' }, ['status']],
      ['no status', {}, ['status']],
      ['other fields', { status: 'cancelled', total: 0 }, ['total']],
    ])('refuses %s', async (_label, body, fields) => {
      const order = await placeOrder(ownerA, [{ product_id: mug.id, quantity: 1 }]);
      expectInvalid(await as(ownerA).put(`/v1/orders/${order.id}`, body), ...fields);
      expect((await as(ownerA).get(`/v1/orders/${order.id}`).expect(200)).body.status).toBe('open');
    });
  });

  describe('validation: 400 error_validation naming the field, and nothing written', () => {
    it.each<[string, unknown, string[]]>([
      ['no lines', {}, ['lines']],
      ['empty lines', { lines: [] }, ['lines']],
      ['lines not an array', { lines: { product_id: 1, quantity: 1 } }, ['lines']],
      ['101 lines', { lines: Array.from({ length: 101 }, () => ({ product_id: 1, quantity: 1 })) }, ['lines']],
      ['a line that is not an object', { lines: [{ product_id: 1, quantity: 1 }, 5] }, ['lines.1']],
      [
        'quantity 0',
        {
          lines: [
            { product_id: 1, quantity: 1 },
            { product_id: 1, quantity: 0 },
          ],
        },
        ['lines.1.quantity'],
      ],
      ['quantity fractional', { lines: [{ product_id: 1, quantity: 1.5 }] }, ['lines.0.quantity']],
      ['quantity a string', { lines: [{ product_id: 1, quantity: '2' }] }, ['lines.0.quantity']],
      ['quantity too large', { lines: [{ product_id: 1, quantity: 10_001 }] }, ['lines.0.quantity']],
      ['product_id missing', { lines: [{ quantity: 1 }] }, ['lines.0.product_id']],
      ['product_id not an integer', { lines: [{ product_id: 'x', quantity: 1 }] }, ['lines.0.product_id']],
      ['an unknown field in a line', { lines: [{ product_id: 1, quantity: 1, note: 'x' }] }, ['lines.0.note']],
      ['an unknown top-level field', { lines: [{ product_id: 1, quantity: 1 }], customer: 'x' }, ['customer']],
    ])('%s', async (_label, body, fields) => {
      const before = await stored();
      expectInvalid(await as(ownerA).post('/v1/orders', body as object), ...fields);
      expect(await stored()).toEqual(before);
    });

    it("another company's product, or a missing one, is refused naming the line; no partial order is written", async () => {
      const before = await stored();
      const listBefore = (await as(ownerA).get('/v1/orders').expect(200)).body.total;
      const res = await as(ownerA).post('/v1/orders', {
        lines: [
          { product_id: tea.id, quantity: 1 },
          { product_id: theirs.id, quantity: 1 },
          { product_id: mug.id, quantity: 2 },
          { product_id: 2_000_000_000, quantity: 1 },
        ],
      });
      expectInvalid(res, 'lines.1.product_id', 'lines.3.product_id');
      expect(res.body.message).toContain('lines.1.product_id');
      expect(await stored()).toEqual(before);
      expect((await as(ownerA).get('/v1/orders').expect(200)).body.total).toBe(listBefore);
    });

    it('writes the order and its lines in one transaction: a line that fails in the database leaves no order', async () => {
      // A real database failure after the order row is inserted: a trigger that refuses one quantity.
      await db.query(`
        CREATE FUNCTION refuse_quantity_7777() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.quantity = 7777 THEN RAISE EXCEPTION 'refused by test trigger'; END IF;
          RETURN NEW;
        END $$`);
      await db.query(`
        CREATE TRIGGER refuse_quantity_7777 BEFORE INSERT ON sales_order_line
        FOR EACH ROW EXECUTE FUNCTION refuse_quantity_7777()`);
      try {
        const before = await stored();
        const res = await as(ownerA).post('/v1/orders', {
          lines: [
            { product_id: tea.id, quantity: 1 },
            { product_id: mug.id, quantity: 7777 },
          ],
        });
        expect({ status: res.status, error: res.body.error }).toEqual({ status: 500, error: ['error_internal'] });
        expect(await stored()).toEqual(before);
      } finally {
        await db.query('DROP TRIGGER refuse_quantity_7777 ON sales_order_line');
        await db.query('DROP FUNCTION refuse_quantity_7777()');
      }
      await placeOrder(ownerA, [{ product_id: mug.id, quantity: 7777 }]);
    });

    it.each([
      ['page=0', ['page']],
      ['per_page=101', ['per_page']],
      ['status=shipped', ['status']],
      ['name=x', ['name']],
    ])('GET /v1/orders?%s', async (query, fields) => {
      expectInvalid(await as(readerA).get(`/v1/orders?${query}`), ...fields);
    });

    it.each(['abc', '0', '-1', '1.5', '1e3', '007', '2147483648'])(
      'an id that cannot name an order (%s) → 404 error_not_found',
      async (id) => {
        expectError(await as(ownerA).get(`/v1/orders/${id}`), 404, 'error_not_found');
        expectError(await as(ownerA).put(`/v1/orders/${id}`, { status: 'cancelled' }), 404, 'error_not_found');
      },
    );
  });

  describe('credentials and permissions', () => {
    it('no token → 401 error_jwt_is_required', async () => {
      expectError(await t.http().get('/v1/orders'), 401, 'error_jwt_is_required');
      expectError(await t.http().post('/v1/orders').send({ lines: [] }), 401, 'error_jwt_is_required');
      expectError(await t.http().get('/v1/orders/1'), 401, 'error_jwt_is_required');
      expectError(await t.http().put('/v1/orders/1').send({ status: 'cancelled' }), 401, 'error_jwt_is_required');
    });

    it('orders:read can read but not place or cancel → 403 error_permission_denied, and nothing changes', async () => {
      const order = await placeOrder(ownerA, [{ product_id: tea.id, quantity: 1 }]);
      const before = await stored();
      await as(readerA).get('/v1/orders').expect(200);
      await as(readerA).get(`/v1/orders/${order.id}`).expect(200);
      expectError(
        await as(readerA).post('/v1/orders', { lines: [{ product_id: tea.id, quantity: 1 }] }),
        403,
        'error_permission_denied',
      );
      expectError(
        await as(readerA).put(`/v1/orders/${order.id}`, { status: 'cancelled' }),
        403,
        'error_permission_denied',
      );
      expect(await stored()).toEqual(before);
      expect((await as(readerA).get(`/v1/orders/${order.id}`).expect(200)).body.status).toBe('open');
    });

    it('products permissions do not reach orders', async () => {
      const productsOnly = (
        await login(t, await createAccount(t, [companyA.id], ['products:read', 'products:write']), companyA.id)
      ).jwt;
      expectError(await as(productsOnly).get('/v1/orders'), 403, 'error_permission_denied');
    });
  });

  describe('isolation between companies', () => {
    it("company A never sees or cancels company B's orders: list, get, update", async () => {
      const order = await placeOrder(ownerB, [{ product_id: theirs.id, quantity: 3 }]);
      const listA = (await as(ownerA).get('/v1/orders?per_page=100').expect(200)).body.data as { id: number }[];
      expect(listA.map((o) => o.id)).not.toContain(order.id);
      expectError(await as(ownerA).get(`/v1/orders/${order.id}`), 404, 'error_not_found');
      expectError(await as(ownerA).put(`/v1/orders/${order.id}`, { status: 'cancelled' }), 404, 'error_not_found');
      expect((await as(ownerB).get(`/v1/orders/${order.id}`).expect(200)).body).toEqual(order);
      expect((await as(ownerB).get('/v1/orders').expect(200)).body.data.map((o: { id: number }) => o.id)).toEqual([
        order.id,
      ]);
    });

    it("an order cannot reference another company's product", async () => {
      const before = await stored();
      expectInvalid(
        await as(ownerA).post('/v1/orders', { lines: [{ product_id: theirs.id, quantity: 1 }] }),
        'lines.0.product_id',
      );
      expectInvalid(
        await as(ownerB).post('/v1/orders', { lines: [{ product_id: tea.id, quantity: 1 }] }),
        'lines.0.product_id',
      );
      expect(await stored()).toEqual(before);
    });
  });
});
