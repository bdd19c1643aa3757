import { RequestMethod, type Type } from '@nestjs/common';
import {
  METHOD_METADATA,
  MODULE_METADATA,
  PATH_METADATA,
  ROUTE_ARGS_METADATA,
  VERSION_METADATA,
} from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { MetadataScanner, type ModulesContainer, Reflector } from '@nestjs/core';
import { declaredQuery } from './declared-query';

/** A decorator made with `Reflector.createDecorator<T>()`: the typed key its metadata is read with. */
type RuleDecorator<T> = ReturnType<typeof Reflector.createDecorator<T>>;

/**
 * One route of the application as its decorators declare it. The route's rules (access, rate limit) are read
 * with the decorators their own modules define, through {@link rule} and {@link ruleParts}, so this walker
 * knows no feature and every reader (the rate-limit policy, the OpenAPI document, the route-table test) sees
 * the same routes.
 */
export interface CataloguedRoute {
  /** `GET`, `POST`, ...; `ALL` for `@All()`. */
  method: string;
  /** Every path the route answers, with the version prefix: `/v1/products/:id`. */
  paths: string[];
  /** The same paths without the version prefix, as controllers and handlers declare them: `/products/:id`. */
  unversionedPaths: string[];
  controller: Type;
  handler: Function;
  handlerName: string;
  /** The properties of its `@Query()` DTO or its `@Query('name')` arguments; `any` for an untyped object. */
  query: ReadonlySet<string> | 'any';
  /** The class of its `@Body()` argument, when it has one. */
  body: Function | undefined;
  /** The handler's rule, else its controller's (as guards read it). */
  rule<T>(decorator: RuleDecorator<T>): T | undefined;
  /** The controller's and the handler's own rules, for readers that merge them key by key. */
  ruleParts<T>(decorator: RuleDecorator<T>): { controller: T | undefined; handler: T | undefined };
}

const reflector = new Reflector();
const scanner = new MetadataScanner();

function joinPath(...parts: string[]): string {
  return `/${parts
    .flatMap((part) => part.split('/'))
    .filter((segment) => segment !== '')
    .join('/')}`;
}

function bodyOf(controller: Type, handlerName: string): Function | undefined {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handlerName) ?? {}) as Record<
    string,
    { index: number }
  >;
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, handlerName) ?? []) as Function[];
  const body = Object.entries(args).find(([key]) => Number(key.split(':')[0]) === RouteParamtypes.BODY);
  return body ? types[body[1].index] : undefined;
}

/** The routes of these controllers, in declaration order. Reads metadata only: run it at boot, never per request. */
export function routeCatalogue(controllers: Iterable<Type>): CataloguedRoute[] {
  const routes: CataloguedRoute[] = [];
  for (const controller of controllers) {
    const prototype = controller.prototype as Record<string, Function>;
    const controllerPaths = [reflector.get<string | string[] | undefined>(PATH_METADATA, controller) ?? '/'].flat();
    for (const handlerName of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[handlerName];
      const methodPaths = reflector.get<string | string[] | undefined>(PATH_METADATA, handler);
      const method = reflector.get<RequestMethod | undefined>(METHOD_METADATA, handler);
      if (methodPaths === undefined || method === undefined) continue;
      const version = (reflector.get<unknown>(VERSION_METADATA, handler) ??
        reflector.get<unknown>(VERSION_METADATA, controller)) as string | undefined;
      const unversionedPaths = controllerPaths.flatMap((base) =>
        [methodPaths].flat().map((path) => joinPath(base, path)),
      );
      routes.push({
        method: RequestMethod[method],
        paths: unversionedPaths.map((path) => (version ? joinPath(`v${version}`, path) : path)),
        unversionedPaths,
        controller,
        handler,
        handlerName,
        query: declaredQuery(controller, handler),
        body: bodyOf(controller, handlerName),
        rule: (decorator) => reflector.getAllAndOverride(decorator, [handler, controller]),
        ruleParts: (decorator) => ({
          controller: reflector.get(decorator, controller),
          handler: reflector.get(decorator, handler),
        }),
      });
    }
  }
  return routes;
}

/** The controllers of a started (or previewed) application's modules. */
export function controllersOf(modules: ModulesContainer): Type[] {
  return [...modules.values()].flatMap((module) =>
    [...module.controllers.values()].map((wrapper) => wrapper.metatype as Type).filter((type) => type?.prototype),
  );
}

type ModuleEntry = { module?: Function; imports?: unknown[]; controllers?: Type[] } | Function;

/**
 * The controllers a root module declares, found by walking its imports through Nest's module metadata without
 * instantiating anything (for checks that need no database, such as the route-table test).
 */
export function controllersDeclaredBy(root: unknown): Type[] {
  const controllers = new Set<Type>();
  const seen = new Set<unknown>();
  const visit = (entry: unknown): void => {
    if (!entry || seen.has(entry)) return;
    seen.add(entry);
    const ref = entry as ModuleEntry;
    const moduleClass = typeof ref === 'function' ? ref : ref.module;
    const dynamic = typeof ref === 'function' ? {} : ref;
    const declared = (key: string) => (moduleClass ? (Reflect.getMetadata(key, moduleClass) ?? []) : []) as unknown[];
    for (const controller of [...declared(MODULE_METADATA.CONTROLLERS), ...(dynamic.controllers ?? [])]) {
      controllers.add(controller as Type);
    }
    if (moduleClass) visit(moduleClass);
    for (const imported of [...declared(MODULE_METADATA.IMPORTS), ...(dynamic.imports ?? [])]) visit(imported);
  };
  visit(root);
  return [...controllers];
}
