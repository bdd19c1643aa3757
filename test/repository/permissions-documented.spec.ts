import { PERMISSIONS } from '../../src/permissions/permission';
import { expectGeneratedTable, permissionsTable, readDoc } from './generated-tables';

/**
 * A permission is part of the public interface: the catalogue in src/permissions/permission.ts (which the
 * service, the CLI and the admin page read) must be the one docs/api.md's table (docs/feature-modules.md's for the
 * modules of src/features.ts) and the contract name.
 */
describe('the permission catalogue is documented', () => {
  it('docs/api.md shows the table the catalogue produces, row for row', () => {
    expectGeneratedTable('docs/api.md', 'permissions', permissionsTable('core'));
  });

  it("docs/feature-modules.md shows the feature modules' permissions, row for row", () => {
    expectGeneratedTable('docs/feature-modules.md', 'feature permissions', permissionsTable('features'));
  });

  it.each([...PERMISSIONS])('docs/contract.md names %s', (permission) => {
    expect(readDoc('docs/contract.md')).toContain(`\`${permission}\``);
  });
});
