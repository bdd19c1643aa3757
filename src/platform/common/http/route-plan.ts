import { Global, Injectable, Module, type OnApplicationBootstrap, type Type } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import { type CataloguedRoute, routeCatalogue } from './route-catalogue';

/**
 * One feature's piece of every route's plan (the access rule, the rate limit), compiled from the route's
 * catalogue entry. The feature that reads it declares it with {@link RoutePlans.part}; common code never
 * imports a feature, so the plan carries the pieces without knowing their types.
 */
export interface PlanPart<T> {
  readonly name: string;
  /** The piece's slot in every plan. */
  readonly slot: number;
  /** Never set: carries the piece's type from where it is declared to where it is read. */
  readonly type?: T;
}

/** Everything the guards need of one route, compiled once at start: what each of them used to cache on its own. */
export class RoutePlan {
  /** The route's declared query parameters (docs/contract.md: any other is refused); `any` for an untyped object. */
  readonly query: ReadonlySet<string> | 'any';
  /** Filled by {@link RoutePlans} at start, one slot per {@link PlanPart}. */
  readonly pieces: unknown[] = [];

  constructor(readonly route: CataloguedRoute) {
    this.query = route.query;
  }

  part<T>(part: PlanPart<T>): T {
    return this.pieces[part.slot] as T;
  }
}

/**
 * The plan of every route, keyed by its handler, compiled from the route catalogue (common/http/route-catalogue.ts)
 * when the application starts. Guards read it on every request with one Map look-up and no reflection.
 *
 * Features declare their pieces in their constructors ({@link part}); Nest builds every provider before any
 * bootstrap hook runs, so all pieces are known when {@link onApplicationBootstrap} compiles the plans.
 */
@Injectable()
export class RoutePlans implements OnApplicationBootstrap {
  private readonly compilers: Array<(route: CataloguedRoute) => unknown> = [];
  private readonly plans = new Map<Function, RoutePlan>();
  private compiled = false;

  /** `controllers`: where the routes come from (the started application's, in Nest; a list, in unit specs). */
  constructor(private readonly controllers: () => Iterable<Type>) {}

  /** A piece every plan carries, compiled by `compile` from the route's decorators. */
  part<T>(name: string, compile: (route: CataloguedRoute) => T): PlanPart<T> {
    const part = { name, slot: this.compilers.length };
    this.compilers.push(compile);
    // A piece declared after start (a provider built late) is compiled into the plans that exist already.
    for (const plan of this.plans.values()) plan.pieces[part.slot] = compile(plan.route);
    return part;
  }

  onApplicationBootstrap(): void {
    this.compile(this.controllers());
  }

  /**
   * The plan of the route `handler` serves. A handler the start did not see (a controller outside the
   * application's modules, a unit spec's) has its controller compiled on first use, the same way.
   */
  of(handler: Function, controller: Function): RoutePlan {
    const plan = this.plans.get(handler);
    if (plan !== undefined) return plan;
    if (!this.compiled) this.compile(this.controllers());
    this.compile([controller as Type]);
    const compiled = this.plans.get(handler);
    if (compiled === undefined) throw new Error(`${controller.name}.${handler.name} is not a route`);
    return compiled;
  }

  /** Every plan, for readers that index routes another way (by path pattern). */
  all(): Iterable<RoutePlan> {
    if (!this.compiled) this.compile(this.controllers());
    return this.plans.values();
  }

  private compile(controllers: Iterable<Type>): void {
    this.compiled = true;
    for (const route of routeCatalogue(controllers)) {
      if (this.plans.has(route.handler)) continue;
      const plan = new RoutePlan(route);
      for (const compile of this.compilers) plan.pieces.push(compile(route));
      this.plans.set(route.handler, plan);
    }
  }
}

/** The application's route plans, for every guard (global: the guards live in several feature modules). */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [
    {
      provide: RoutePlans,
      inject: [DiscoveryService],
      useFactory: (discovery: DiscoveryService) =>
        new RoutePlans(() =>
          discovery
            .getControllers()
            .flatMap(({ instance, metatype }) => (instance && metatype ? [metatype as Type] : [])),
        ),
    },
  ],
  exports: [RoutePlans],
})
export class RoutePlanModule {}
