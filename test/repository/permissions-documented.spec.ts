import { CORE_PERMISSIONS, FEATURE_PERMISSIONS, PERMISSIONS } from '../../src/access/permissions/permission';
import { FEATURES } from '../../src/features';
import { expectGeneratedTable, permissionsTable, readDoc } from './generated-tables';

/** The permission names of docs/contract.md's `## Permissions` section (`*` aside), in its order. */
function contractPermissions(): string[] {
  const section = /^## Permissions\n([\s\S]*?)(?=^## )/m.exec(readDoc('docs/contract.md'))?.[1] ?? '';
  return [...section.matchAll(/`([a-z]+:[a-z]+)`/g)].map((match) => match[1]);
}

/**
 * A permission is part of the public interface: the catalogue in src/access/permissions/permission.ts (which the
 * service, the CLI and the admin page read) must be the one docs/api.md's table and the contract name. The
 * contract's permissions are the core ones (docs/api.md's table) and those of the feature modules it binds
 * (products, orders, files, marketing-conversations, registered in src/features.ts like any other). The
 * permissions of the feature modules a team adds are its own interface, not the contract's: docs/feature-modules.md's
 * table documents every feature module's, so `npm test` passes right after `npm run new:module`.
 */
describe('the permission catalogue is documented', () => {
  it('docs/api.md shows the table the catalogue produces, row for row', () => {
    expectGeneratedTable('docs/api.md', 'permissions', permissionsTable('core'));
  });

  it("docs/feature-modules.md shows the feature modules' permissions, row for row", () => {
    expectGeneratedTable('docs/feature-modules.md', 'feature permissions', permissionsTable('features'));
  });

  it("docs/contract.md's permission list is the core permissions with those of the feature modules it names", () => {
    const contract = contractPermissions();
    const catalogue: readonly string[] = PERMISSIONS;
    // Every name the contract binds exists (a feature module's line of src/features.ts included), once.
    expect(contract.filter((permission) => !catalogue.includes(permission))).toEqual([]);
    expect(new Set(contract).size).toBe(contract.length);
    // … and is exactly the core permissions plus whole feature modules: the contract takes a module's permissions
    // all or none.
    const bound = FEATURES.filter((feature) =>
      Object.keys(feature.permissions).some((permission) => contract.includes(permission)),
    );
    const expected = [...CORE_PERMISSIONS, ...bound.flatMap((feature) => Object.keys(feature.permissions))];
    expect([...contract].sort()).toEqual([...expected].sort());
    expect(bound.map((feature) => feature.folder).sort()).toEqual([
      'files',
      'marketing-conversations',
      'orders',
      'products',
    ]);
  });

  it.each([...CORE_PERMISSIONS])('docs/contract.md names %s', (permission) => {
    expect(contractPermissions()).toContain(permission);
  });

  it("a feature module of src/features.ts takes none of the core modules' permission names", () => {
    const core: readonly string[] = CORE_PERMISSIONS;
    expect(FEATURE_PERMISSIONS.filter((permission) => core.includes(permission))).toEqual([]);
  });
});
