import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PERMISSIONS } from '../../src/permissions/permission';

/**
 * A permission is part of the public interface: the catalogue in src/permissions/permission.ts (which the
 * service, the CLI and the admin page read) must be the one README and the contract name.
 */
const ROOT = resolve(__dirname, '..', '..');
const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
const contract = readFileSync(resolve(ROOT, 'docs', 'contract.md'), 'utf8');
const permissionLine = /^Permissions: [\s\S]*?for all\.$/m.exec(readme)?.[0] ?? '';

describe('the permission catalogue is documented', () => {
  it('README has its "Permissions:" list', () => {
    expect(permissionLine).not.toBe('');
  });

  it.each([...PERMISSIONS])('README and docs/contract.md name %s', (permission) => {
    expect(permissionLine).toContain(`\`${permission}\``);
    expect(contract).toContain(`\`${permission}\``);
  });

  it("README's list names nothing the service does not know", () => {
    const named = [...permissionLine.matchAll(/`([a-z]+:[a-z]+)`/g)].map((m) => m[1]);
    expect(named.filter((name) => !(PERMISSIONS as readonly string[]).includes(name))).toEqual([]);
  });
});
