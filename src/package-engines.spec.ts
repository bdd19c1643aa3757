import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Range, subset } from 'semver';

interface LockEntry {
  version?: string;
  optional?: boolean;
  engines?: { node?: string } | string[];
}

const ROOT = join(__dirname, '..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

/** Every installed package with a Node range of its own, as `name@version` → range. */
function lockedNodeRanges(): Array<[string, string]> {
  const ranges: Array<[string, string]> = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '') continue;
    const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (node !== undefined) ranges.push([`${path.replace(/^.*node_modules\//, '')}@${entry.version}`, node]);
  }
  return ranges;
}

/**
 * `engines.node` promises that `npm ci` installs and the service runs on every Node version it names: so every
 * locked package must accept all of them (npm otherwise warns EBADENGINE), and the lock file must record the
 * same range as package.json.
 */
describe('engines.node', () => {
  const engines = manifest.engines.node;

  it('is a valid range, and the lock file records the same one', () => {
    expect(new Range(engines).range).not.toBe('');
    expect((lock.packages[''].engines as { node?: string }).node).toBe(engines);
  });

  it('is accepted by every package in package-lock.json', () => {
    const ranges = lockedNodeRanges();
    expect(ranges.length).toBeGreaterThan(100);
    const refusing = ranges.filter(([, range]) => !subset(engines, range)).map(([id, range]) => `${id} (${range})`);
    expect(refusing).toEqual([]);
  });

  it('is the range docs/operations.md names, with the supported LTS lines, and Node.js 20 not among them', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
    const setUp = doc.slice(doc.indexOf('## Node.js'), doc.indexOf('## Running'));
    expect(setUp).toContain(`\`${engines}\``);
    expect(setUp).toMatch(/Node\.js 24 LTS \(24\.11\+\) or 22 LTS \(22\.13\+\)/);
    // Node 20 reached its end of life on 2026-04-30 (docs/contract.md, Runtime): not supported, not admitted.
    expect(setUp).toMatch(/Node\.js 20 reached its end of life on 2026-04-30 and is not supported/);
    expect(subset('^20.19.0', engines)).toBe(false);
    expect(subset('^22.13.0', engines) && subset('^24.11.0', engines)).toBe(true);
  });
});
