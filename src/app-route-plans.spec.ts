import { SystemClock } from './platform/common/clock/clock';
import { AppModule } from './app.module';
import { AuthGuard } from './identity/auth/auth.guard';
import type { CredentialService } from './identity/auth/credentials/credential.service';
import { controllersDeclaredBy } from './platform/common/http/route-catalogue';
import { type RoutePlan, RoutePlans } from './platform/common/http/route-plan';
import type { AppLogger } from './platform/common/logging/logger';
import type { AppConfig } from './platform/config/app-config';
import { RateLimitPolicy } from './rate-limiting/limiter/rate-limit.policy';

/**
 * The route plan every guard reads, compiled once from the application's own routes: the access rule (AuthGuard),
 * the group, capacity and exemption (RateLimitPolicy, read by RateLimitGuard), and the declared query
 * (InputSanityGuard). One route of each kind.
 */
describe('compiled route plans', () => {
  const config = { rateLimitScale: 1 } as AppConfig;
  const compiled: string[] = [];
  const plans = new RoutePlans(() => controllersDeclaredBy(AppModule.forRoot(config, {} as AppLogger)));
  // The guards declare their pieces as Nest builds them; a compiler that counts calls stands beside them.
  plans.part('compile counter', (route) => compiled.push(`${route.method} ${route.paths[0]}`));
  const auth = new AuthGuard(plans, {} as CredentialService, new SystemClock());
  const limits = new RateLimitPolicy(plans, config);
  plans.onApplicationBootstrap();

  const planOf = (route: string): RoutePlan => {
    const found = [...plans.all()].find((plan) =>
      plan.route.paths.some((path) => `${plan.route.method} ${path}` === route),
    );
    if (!found) throw new Error(`no route ${route}`);
    return found;
  };
  const pieces = (route: string) => {
    const plan = planOf(route);
    const { group, skip, capacity } = limits.route(plan.route.handler, plan.route.controller);
    return {
      access: plan.part(auth.access),
      limits: { group, skip, capacity },
      query: plan.query === 'any' ? 'any' : [...plan.query].sort(),
    };
  };

  it('compiles each route once, at start, and answers later asks from the same plan', () => {
    const count = compiled.length;
    expect(count).toBe(new Set(compiled).size);
    const plan = planOf('GET /v1/users/me');
    expect(plans.of(plan.route.handler, plan.route.controller)).toBe(plan);
    expect(compiled.length).toBe(count);
  });

  it('a public route, counted', () => {
    expect(pieces('POST /v1/users/refreshtoken')).toEqual({
      access: { public: true },
      limits: { group: 'users', skip: false, capacity: 15 },
      query: [],
    });
  });

  it('the login-lock route: public, counted on the users group like any POST', () => {
    expect(pieces('POST /v1/users/authenticatefinish')).toEqual({
      access: { public: true },
      limits: { group: 'users', skip: false, capacity: 15 },
      query: [],
    });
  });

  it('a JWT-only route', () => {
    expect(pieces('GET /v1/users/sessions')).toMatchObject({
      access: { public: false, jwtOnly: true },
      limits: { group: 'users', skip: false, capacity: 30 },
    });
  });

  it('a route that needs a permission, with its declared query', () => {
    expect(pieces('GET /v1/products')).toEqual({
      access: { public: false, permission: 'products:read' },
      limits: { group: 'products', skip: false, capacity: 30 },
      query: ['name', 'page', 'per_page'],
    });
  });

  it("a controller's own per-method limit", () => {
    expect(pieces('POST /v1/files').limits).toEqual({ group: 'files', skip: false, capacity: 30 });
  });

  it('a SCIM route: public to the global guard, its own guard named, counted on the scim group, any query', () => {
    expect(pieces('PATCH /scim/v2/Users/:id')).toEqual({
      access: { public: true, by: 'SCIM bearer token' },
      limits: { group: 'scim', skip: false, capacity: 30 },
      query: 'any',
    });
  });

  it('a route exempt from the rate limit (not counted)', () => {
    expect(pieces('GET /health')).toMatchObject({ access: { public: true }, limits: { skip: true } });
  });

  it('the headers of an answer no guard saw find the route by its pattern', () => {
    expect(limits.routeForPattern('POST', '/v1/files')).toMatchObject({ group: 'files', capacity: 30 });
    expect(limits.routeForPattern('GET', '/v1/nothing/here')).toBeUndefined();
  });

  it('scales capacities with RATE_LIMIT_SCALE, and answers other methods of the route from the table', () => {
    const scaled = new RoutePlans(() => controllersDeclaredBy(AppModule.forRoot(config, {} as AppLogger)));
    const policy = new RateLimitPolicy(scaled, { rateLimitScale: 0.1 } as AppConfig);
    scaled.onApplicationBootstrap();
    const { route } = planOf('GET /v1/users/me');
    const limitsOfMe = policy.route(route.handler, route.controller);
    expect(limitsOfMe.capacity).toBe(3);
    expect(policy.limitFor('DELETE', limitsOfMe)).toBe(1);
  });
});
