import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const CLIENT = join(__dirname, '..', '..', 'client');

describe('client/ as a package', () => {
  const manifest = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8'));
  const tsconfig = JSON.parse(readFileSync(join(CLIENT, 'tsconfig.json'), 'utf8'));

  it('is built with tsc into what main and types name, the generated types beside it', () => {
    expect(manifest.scripts.build).toMatch(/^tsc -p tsconfig.json && .*openapi\.d\.ts/);
    expect(tsconfig.compilerOptions).toMatchObject({ outDir: 'dist', rootDir: '.', declaration: true });
    expect(manifest.main).toBe('dist/src/index.js');
    expect(manifest.types).toBe('dist/src/index.d.ts');
    expect(manifest.files).toEqual(['dist/']);
  });

  it('has no script that runs when it is installed: it is built when packed (prepack), not by its users', () => {
    // npm 11 asks a user to approve a dependency's install scripts, `prepare` included.
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) {
      expect({ script, defined: script in manifest.scripts }).toEqual({ script, defined: false });
    }
    expect(manifest.scripts.prepack).toMatch(/rmSync\('dist'.*&& npm run build$/);
  });

  it('depends on openapi-fetch only, at the version the repository tests it with', () => {
    const root = JSON.parse(readFileSync(join(CLIENT, '..', 'package.json'), 'utf8'));
    expect(manifest.dependencies).toEqual({ 'openapi-fetch': root.devDependencies['openapi-fetch'] });
    expect(manifest.peerDependencies).toBeUndefined();
  });
});
