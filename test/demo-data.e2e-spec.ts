import { DemoDataService } from '../src/operations/seed/demo-data.service';
import { startTestApp, type TestApp } from './support/test-app';

interface Listed<T> {
  data: T[];
  total: number;
}

/**
 * The demo data of a first start (docs/contract.md "Running": two companies and one owner of both), with what
 * issue 40 added so that the README's and the client's examples have something to read: a few products and
 * orders per company, and a read-only API key shown once with the password.
 */
describe('demo data', () => {
  let t: TestApp;
  let demo: NonNullable<Awaited<ReturnType<DemoDataService['seedIfEmpty']>>>;

  beforeAll(async () => {
    t = await startTestApp();
    demo = (await t.app.get(DemoDataService).seedIfEmpty())!;
  });
  afterAll(() => t.close());

  async function login(companyId: number): Promise<string> {
    const res = await t
      .http()
      .post('/v1/users/authenticatefinish')
      .send({ email: demo.email, password: demo.password, company_id: companyId })
      .expect(200);
    return res.body.jwt as string;
  }

  it('has two companies and one owner of both', async () => {
    expect(demo.email).toBe('owner@demo.example');
    expect(demo.companies.map((company) => company.name)).toEqual(['Demo Company A', 'Demo Company B']);
    const init = await t
      .http()
      .post('/v1/users/authenticateinit')
      .send({ email: demo.email, password: demo.password })
      .expect(200);
    expect(init.body.companies.map((company: { id: number }) => company.id)).toEqual(
      demo.companies.map((company) => company.id),
    );
  });

  it('gives each company products and orders of its own products, with totals the server computed', async () => {
    const expected = [
      { skus: ['ESP-1KG', 'OAT-1L', 'CUP-100', 'MUG-01', 'CB-500'], totals: [2 * 2490 + 3 * 799, 12 * 289 + 4 * 1250] },
      { skus: ['NB-A5', 'PEN-10', 'LAMP-01', 'USBC-1M'], totals: [10 * 450 + 5 * 380, 3490] },
    ];
    for (const [index, company] of demo.companies.entries()) {
      const auth = { authorization: await login(company.id) };
      const products = await t.http().get('/v1/products').set(auth).expect(200);
      const listed = products.body as Listed<{ id: number; sku: string; price: number }>;
      expect(listed.data.map((product) => product.sku)).toEqual(expected[index].skus);
      // docs/client.md's first product, read by its id.
      await t.http().get(`/v1/products/${listed.data[0].id}`).set(auth).expect(200);
      const orders = (await t.http().get('/v1/orders').set(auth).expect(200)).body as Listed<{
        status: string;
        total: number;
        lines: Array<{ product_id: number }>;
      }>;
      expect(orders.data.map((order) => [order.status, order.total])).toEqual(
        expected[index].totals.map((total) => ['open', total]),
      );
      const ids = new Set(listed.data.map((product) => product.id));
      expect(orders.data.flatMap((order) => order.lines).every((line) => ids.has(line.product_id))).toBe(true);
    }
  });

  it("prints an API key that reads the first company's products and orders and nothing more", async () => {
    expect(demo.apiKey).toMatch(/^ak_[A-Za-z0-9_-]+:[A-Za-z0-9_-]+$/);
    const key = { authorization: demo.apiKey };
    const me = await t.http().get('/v1/users/me').set(key).expect(200);
    expect(me.body).toMatchObject({
      credential: 'api_key',
      company: demo.companies[0],
      permissions: ['orders:read', 'products:read'],
    });
    expect((await t.http().get('/v1/products').set(key).expect(200)).body.total).toBe(5);
    await t.http().get('/v1/orders').set(key).expect(200);
    const write = await t.http().post('/v1/products').set(key).send({ name: 'x', sku: 'X-1', price: 1 });
    expect({ status: write.status, error: write.body.error }).toEqual({
      status: 403,
      error: ['error_permission_denied'],
    });
    const owner = { authorization: await login(demo.companies[0].id) };
    const keys = (await t.http().get('/v1/apikeys').set(owner).expect(200)).body as Listed<{ name: string }>;
    expect(keys.data.map((listed) => listed.name)).toEqual(['demo key (read-only)']);
  });

  it('is made once: a second start on the same database adds nothing', async () => {
    expect(await t.app.get(DemoDataService).seedIfEmpty()).toBeNull();
    const auth = { authorization: await login(demo.companies[0].id) };
    expect((await t.http().get('/v1/products').set(auth).expect(200)).body.total).toBe(5);
  });
});
