import { CORE_PERMISSIONS, FEATURE_PERMISSIONS } from '../../src/access/permissions/permission';
import { expectGeneratedTable, permissionsTable, readDoc } from './generated-tables';

/**
 * A permission is part of the public interface: the catalogue in src/access/permissions/permission.ts (which the
 * service, the CLI and the admin page read) must be the one docs/api.md's table and the contract name. The
 * permissions of the feature modules a team adds (src/features.ts) are its own interface, not the contract's:
 * docs/feature-modules.md's table documents them, so `npm test` passes right after `npm run new:module`.
 */
describe('the permission catalogue is documented', () => {
  it('docs/api.md shows the table the catalogue produces, row for row', () => {
    expectGeneratedTable('docs/api.md', 'permissions', permissionsTable('core'));
  });

  it("docs/feature-modules.md shows the feature modules' permissions, row for row", () => {
    expectGeneratedTable('docs/feature-modules.md', 'feature permissions', permissionsTable('features'));
  });

  it.each([...CORE_PERMISSIONS])('docs/contract.md names %s', (permission) => {
    expect(readDoc('docs/contract.md')).toContain(`\`${permission}\``);
  });

  it("a feature module of src/features.ts takes none of the contract's permission names", () => {
    const core: readonly string[] = CORE_PERMISSIONS;
    expect(FEATURE_PERMISSIONS.filter((permission) => core.includes(permission))).toEqual([]);
  });
});
