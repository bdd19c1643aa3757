import type { Type } from '@nestjs/common';
import { featurePartsOf, type FeatureParts } from './platform/common/feature/feature';
import { FEATURES } from './features';

const pascal = (kebab: string) => kebab.replace(/(^|-)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());

export interface LoadedFeature extends FeatureParts {
  folder: string;
  module: Type<unknown>;
}

let loaded: LoadedFeature[] | undefined;

/**
 * The modules of src/features.ts, found by convention (`src/features/<folder>/<folder>.module.ts` exporting
 * `<Folder>Module`, decorated with `@Feature`), so the list stays plain data that the permission catalogue and the
 * administration page can read. Loaded on first use, not at import: the modules import the catalogue.
 */
export function featureModules(): readonly LoadedFeature[] {
  loaded ??= (FEATURES as readonly { folder: string }[]).map(({ folder }) => {
    const name = `${pascal(folder)}Module`;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const module = (require(`./features/${folder}/${folder}.module`) as Record<string, Type<unknown> | undefined>)[
      name
    ];
    if (!module)
      throw new Error(
        `src/features.ts names ${folder}, but src/features/${folder}/${folder}.module.ts exports no ${name}`,
      );
    const parts = featurePartsOf(module);
    if (!parts) throw new Error(`${name} (src/features.ts) has no @Feature({ entities, migrations })`);
    return { folder, module, ...parts };
  });
  return loaded;
}
