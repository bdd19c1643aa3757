import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { adminStaleBecause, serverStaleBecause } from './ensure-build';

/** A project tree in a temporary folder whose files carry the modification times a test gives them. */
class Tree {
  readonly root = mkdtempSync(join(tmpdir(), 'ensure-build-'));

  /** Writes the file with this modification time, in seconds from an arbitrary epoch. */
  file(path: string, at: number): this {
    const full = join(this.root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, '');
    const seconds = 1_700_000_000 + at;
    utimesSync(full, seconds, seconds);
    return this;
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** Sources at t=1..2, a complete build of them at t=10. */
function builtService(): Tree {
  return new Tree()
    .file('tsconfig.json', 1)
    .file('tsconfig.build.json', 1)
    .file('ormconfig.ts', 1)
    .file('src/main.ts', 2)
    .file('src/staff/users/users.service.ts', 2)
    .file('src/staff/users/users.service.spec.ts', 2)
    .file('dist/ormconfig.js', 10)
    .file('dist/src/main.js', 10)
    .file('dist/src/staff/users/users.service.js', 10)
    .file('dist/.tsbuildinfo', 10);
}

/** The page's sources at t=1..2 and its build at t=10. */
function builtPage(): Tree {
  return new Tree()
    .file('package-lock.json', 1)
    .file('admin/index.html', 1)
    .file('admin/vite.config.mts', 1)
    .file('admin/src/screens/Home.tsx', 2)
    .file('dist/admin/index.html', 10);
}

describe('serverStaleBecause (whether `npm start` and the operator commands compile first)', () => {
  let tree: Tree;
  afterEach(() => tree.remove());

  it('is null when every source has an output at least as new: a second start does not rebuild', () => {
    tree = builtService();
    expect(serverStaleBecause(tree.root)).toBeNull();
  });

  it('names a source file edited after the build', () => {
    tree = builtService().file('src/staff/users/users.service.ts', 11);
    expect(serverStaleBecause(tree.root)).toBe('src/staff/users/users.service.ts is newer than its build');
  });

  it('names a new source file that has no output yet', () => {
    tree = builtService().file('src/features/orders/orders.controller.ts', 3);
    expect(serverStaleBecause(tree.root)).toBe('src/features/orders/orders.controller.ts is newer than its build');
  });

  it('rebuilds when there is no build, or the compiler settings changed', () => {
    tree = builtService();
    rmSync(join(tree.root, 'dist', '.tsbuildinfo'));
    expect(serverStaleBecause(tree.root)).toBe('no complete build yet');
    tree.file('dist/.tsbuildinfo', 10).file('tsconfig.build.json', 12);
    expect(serverStaleBecause(tree.root)).toBe('tsconfig.build.json changed');
  });

  it('ignores files that are never built (specs), however new', () => {
    tree = builtService().file('src/staff/users/users.service.spec.ts', 20);
    expect(serverStaleBecause(tree.root)).toBeNull();
  });
});

describe('adminStaleBecause (whether `npm start` rebuilds the administration page)', () => {
  let tree: Tree;
  afterEach(() => tree.remove());

  it('is null when the built page is newer than every file under admin/', () => {
    tree = builtPage();
    expect(adminStaleBecause(tree.root)).toBeNull();
  });

  it.each(['admin/src/screens/Home.tsx', 'admin/vite.config.mts', 'package-lock.json'])(
    'names %s when it changed after the build',
    (path) => {
      tree = builtPage().file(path, 11);
      expect(adminStaleBecause(tree.root)).toBe(`${path} is newer than the administration page`);
    },
  );

  it('rebuilds a page that is not built (or whose build was interrupted after emptying dist/admin)', () => {
    tree = builtPage();
    rmSync(join(tree.root, 'dist', 'admin'), { recursive: true });
    expect(adminStaleBecause(tree.root)).toBe('the administration page is not built yet');
  });
});
