import { type LoadPriority, LoadPriorityMetadata } from '../../access/rules/load-priority.decorator';
import type { CataloguedRoute } from '../../platform/common/http/route-catalogue';

/** A route that declares no priority: reads are GET and HEAD, everything else writes. */
export function defaultPriority(method: string): LoadPriority {
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}

/** The route's declared priority (the handler's, else its controller's), else its method's. */
export function priorityOfRoute(route: CataloguedRoute): LoadPriority {
  return route.rule(LoadPriorityMetadata) ?? defaultPriority(route.method);
}

/**
 * Every route's priority by method and path as Fastify matched it (`GET /v1/products/:id`), built once from the
 * route catalogue. HEAD answers as its GET; `@All()` routes answer every method.
 */
export class RoutePriorities {
  private readonly byRoute = new Map<string, LoadPriority>();

  constructor(routes: Iterable<CataloguedRoute>) {
    for (const route of routes) {
      const priority = priorityOfRoute(route);
      for (const path of route.paths) this.byRoute.set(`${route.method} ${path}`, priority);
    }
  }

  /** `url`: the matched route's pattern; undefined for a request no route matched. */
  of(method: string, url: string | undefined): LoadPriority {
    if (url === undefined) return defaultPriority(method);
    const asked = method === 'HEAD' ? 'GET' : method;
    return this.byRoute.get(`${asked} ${url}`) ?? this.byRoute.get(`ALL ${url}`) ?? defaultPriority(method);
  }
}
