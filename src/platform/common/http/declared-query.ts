import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { getMetadataStorage } from 'class-validator';

interface RouteArgument {
  index: number;
  data?: unknown;
}

function propertiesOf(dto: Function): string[] {
  // The same metadata the validation pipe whitelists with, inherited properties (page, per_page) included.
  return getMetadataStorage()
    .getTargetValidationMetadatas(dto, '', true, false)
    .map((metadata) => metadata.propertyName);
}

/**
 * The query parameters a route declares: the properties of its `@Query()` DTO, or the names of its
 * `@Query('name')` arguments. A route with no `@Query()` declares none. Read from the decorators once, when
 * the route catalogue is built at start (each route's plan, common/http/route-plan.ts, carries the answer), so
 * the check costs a set look-up per parameter.
 */
export function declaredQuery(controller: Function, handler: Function): ReadonlySet<string> | 'any' {
  const argumentsMeta = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler.name) ?? {}) as Record<
    string,
    RouteArgument
  >;
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, handler.name) ?? []) as Function[];
  const names = new Set<string>();
  let result: ReadonlySet<string> | 'any' = names;
  for (const [key, argument] of Object.entries(argumentsMeta)) {
    if (Number(key.split(':')[0]) !== RouteParamtypes.QUERY) continue;
    if (typeof argument.data === 'string') {
      names.add(argument.data);
      continue;
    }
    const dto = types[argument.index];
    // A whole-query argument without a DTO class (a plain object) accepts what the handler reads itself.
    if (!dto || dto === Object) {
      result = 'any';
      break;
    }
    for (const property of propertiesOf(dto)) names.add(property);
  }
  return result;
}

/** The first query parameter of `query` that `allowed` (the route's {@link declaredQuery}) does not name, or null. */
export function undeclaredQueryParameter(query: unknown, allowed: ReadonlySet<string> | 'any'): string | null {
  if (allowed === 'any' || !query || typeof query !== 'object') return null;
  for (const key in query) if (!allowed.has(key)) return key;
  return null;
}
