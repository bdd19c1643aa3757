import 'reflect-metadata';

/** What a feature module brings to the schema; read by the data source (src/feature-modules.ts). */
export interface FeatureParts {
  /** The TypeORM entities of the module's own tables. */
  entities: readonly (abstract new (...args: never[]) => unknown)[];
  /** The migrations that create and change those tables. */
  migrations: readonly (new () => unknown)[];
}

const FEATURE_PARTS = Symbol('feature-parts');

/**
 * Marks a feature module (listed in src/features.ts) and names its entities and migrations, so that adding a
 * module edits no shared list of entities or migrations: `@Feature({ entities: [Note], migrations: [...] })`
 * beside `@Module(...)`.
 */
export function Feature(parts: FeatureParts): ClassDecorator {
  return (target) => Reflect.defineMetadata(FEATURE_PARTS, parts, target);
}

/** The parts a module declared with `@Feature`, `undefined` for a module without. */
export function featurePartsOf(moduleClass: object): FeatureParts | undefined {
  return Reflect.getMetadata(FEATURE_PARTS, moduleClass) as FeatureParts | undefined;
}
