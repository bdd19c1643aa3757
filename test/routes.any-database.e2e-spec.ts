import { Controller, Get, Module } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { AuthRuleMetadata } from '../src/access/rules/auth.decorator';
import { createAccount, createCompanies, login, authed } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';

/** A route that forgot its rule, to prove the guard fails closed. */
@Controller({ path: 'forgotten', version: '1' })
class ForgottenController {
  @Get()
  open() {
    return { reached: true };
  }
}

@Module({ controllers: [ForgottenController] })
class ForgottenModule {}

describe('every route declares its access rule', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ extraModules: [ForgottenModule] });
  });
  afterAll(() => t.close());

  function routes() {
    const reflector = t.app.get(Reflector);
    const scanner = new MetadataScanner();
    return [...t.app.get(ModulesContainer).values()]
      .flatMap((module) => [...module.controllers.values()])
      .filter((wrapper) => wrapper.metatype && wrapper.metatype !== ForgottenController)
      .flatMap((wrapper) => {
        const prototype = Object.getPrototypeOf(wrapper.instance);
        return scanner
          .getAllMethodNames(prototype)
          .filter((name) => Reflect.getMetadata(PATH_METADATA, prototype[name]) !== undefined)
          .map((name) => ({
            route: `${wrapper.metatype!.name}.${name}`,
            rule: reflector.getAllAndOverride(AuthRuleMetadata, [prototype[name], wrapper.metatype!]),
          }));
      });
  }

  it('finds the application routes', () => {
    const names = routes().map((r) => r.route);
    expect(names).toEqual(
      expect.arrayContaining(['LoginController.authenticateFinish', 'UsersController.me', 'HealthController.check']),
    );
  });

  it('has a @Public() or @Auth() rule on every route', () => {
    const undeclared = routes()
      .filter((r) => r.rule === undefined)
      .map((r) => r.route);
    expect(undeclared).toEqual([]);
  });

  it('refuses a route that declares neither (fail closed)', async () => {
    const res = await t.http().get('/v1/forgotten').expect(403);
    expect(res.body.error).toEqual(['error_permission_denied']);
  });

  // The rate-limit headers the OpenAPI document declares on every /v1 answer (openapi.embedded-only.e2e-spec.ts),
  // as answered: one place for every group's runtime check (the products and orders
  // suites used to repeat it, each on both databases). Every status (200, 201, 204, 400, 401, 403, 404) and every
  // method of the two groups, each naming its method and group in the identifier.
  it('answers every products and orders request, whatever its status, with the rate-limit headers of its group', async () => {
    const [company] = await createCompanies(t, 'Headers Co');
    const as = (credential: string) => authed(t, credential);
    const writer = (await login(t, await createAccount(t, [company.id], ['*']), company.id)).jwt;
    const productsReader = (await login(t, await createAccount(t, [company.id], ['products:read']), company.id)).jwt;
    const ordersReader = (await login(t, await createAccount(t, [company.id], ['orders:read']), company.id)).jwt;
    const created = await as(writer).post('/v1/products', { name: 'Limited', sku: 'RL-1', price: 1 });
    expect(created.status).toBe(201);
    const product = created.body as { id: number };
    const placed = await as(writer).post('/v1/orders', { lines: [{ product_id: product.id, quantity: 1 }] });
    expect(placed.status).toBe(201);
    const order = placed.body as { id: number };

    // [method, with a credential, answer]
    type Answer = [string, boolean, Awaited<ReturnType<ReturnType<typeof as>['get']>>];
    const products: Answer[] = [
      ['GET', true, await as(productsReader).get('/v1/products')],
      ['GET', true, await as(productsReader).get(`/v1/products/${product.id}`)],
      ['POST', true, await as(writer).post('/v1/products', { name: 'x' })],
      ['PUT', true, await as(writer).put(`/v1/products/${product.id}`, { name: 'Limited', sku: 'RL-1', price: 2 })],
      ['PATCH', true, await as(writer).patch(`/v1/products/${product.id}`, { price: 3 })],
      ['DELETE', true, await as(writer).delete(`/v1/products/${product.id}`)],
      ['DELETE', true, await as(productsReader).delete(`/v1/products/${product.id}`)],
      ['GET', false, await t.http().get('/v1/products')],
    ];
    expect(products.map(([, , res]) => res.status)).toEqual([200, 200, 400, 200, 200, 204, 403, 401]);
    const orders: Answer[] = [
      ['GET', true, await as(ordersReader).get('/v1/orders')],
      ['GET', true, await as(ordersReader).get(`/v1/orders/${order.id}`)],
      ['POST', true, await as(writer).post('/v1/orders', { lines: [] })],
      ['PUT', true, await as(writer).put(`/v1/orders/${order.id}`, { status: 'cancelled' })],
      ['PUT', true, await as(ordersReader).put(`/v1/orders/${order.id}`, { status: 'cancelled' })],
      ['GET', true, await as(writer).get('/v1/orders/999999')],
      ['GET', false, await t.http().get('/v1/orders')],
    ];
    expect(orders.map(([, , res]) => res.status)).toEqual([200, 200, 400, 200, 403, 404, 401]);

    for (const [group, answers] of [
      ['products', products],
      ['orders', orders],
    ] as const) {
      for (const [method, credentialed, res] of answers) {
        expect(res.headers['x-rate-limit-limit']).toMatch(/^\d+$/);
        expect(res.headers['x-rate-limit-remaining']).toMatch(/^\d+$/);
        // The request's method, the route's group, the credential's hash (or "-" without one).
        const hash = credentialed ? '[0-9a-f]{16}' : '-';
        expect(res.headers['x-rate-limit-identifier']).toMatch(new RegExp(`^[^|]+\\|${method}\\|${group}\\|${hash}$`));
      }
    }
    // PATCH has the capacity GET has.
    expect(products[4][2].headers['x-rate-limit-limit']).toBe(products[0][2].headers['x-rate-limit-limit']);
  });
});
