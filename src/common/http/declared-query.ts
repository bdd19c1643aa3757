import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { getMetadataStorage } from 'class-validator';

interface RouteArgument {
  index: number;
  data?: unknown;
}

const declared = new WeakMap<Function, ReadonlySet<string> | 'any'>();

function propertiesOf(dto: Function): string[] {
  // The same metadata the validation pipe whitelists with, inherited properties (page, per_page) included.
  return getMetadataStorage()
    .getTargetValidationMetadatas(dto, '', true, false)
    .map((metadata) => metadata.propertyName);
}

/**
 * The query parameters a route declares: the properties of its `@Query()` DTO, or the names of its
 * `@Query('name')` arguments. A route with no `@Query()` declares none. Read from the decorators once per
 * handler, so the check costs a set look-up per parameter.
 */
export function declaredQuery(controller: Function, handler: Function): ReadonlySet<string> | 'any' {
  const known = declared.get(handler);
  if (known) return known;
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
  declared.set(handler, result);
  return result;
}

/** The first query parameter the route does not declare, or null. */
export function undeclaredQueryParameter(query: unknown, controller: Function, handler: Function): string | null {
  if (!query || typeof query !== 'object') return null;
  const keys = Object.keys(query);
  if (keys.length === 0) return null;
  const allowed = declaredQuery(controller, handler);
  if (allowed === 'any') return null;
  return keys.find((key) => !allowed.has(key)) ?? null;
}
