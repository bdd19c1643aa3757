import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { layoutEntries, layoutProblems } from './architecture-layout';

const ROOT = resolve(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const GUIDE = 'docs/adding-a-feature-module.md';

describe("docs/architecture.md's layout", () => {
  it('lists every folder of src/, once, with what it owns, and nothing that does not exist', () => {
    // The feature modules' folders are listed in docs/feature-modules.md, so adding one edits no shared layout.
    expect(layoutProblems(ROOT, read('docs/architecture.md'), read('docs/feature-modules.md'))).toEqual([]);
  });

  it('is read as entries (a sanity check of the reader on the real document)', () => {
    const paths = layoutEntries(read('docs/architecture.md')).map((entry) => entry.path);
    expect(paths).toEqual(
      expect.arrayContaining(['src/identity/sessions/', 'src/identity/auth/mfa/', 'admin/', 'docs/']),
    );
  });
});

describe('the layout check', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'layout-'));
    for (const folder of ['src/auth', 'src/sessions', 'src/counters'])
      mkdirSync(join(dir, folder), { recursive: true });
    writeFileSync(join(dir, 'src', 'main.ts'), '');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('passes a layout that matches the tree', () => {
    const readme = [
      '## Layout',
      '```',
      'src/',
      '  main.ts        start',
      '  auth/          credentials',
      '  sessions/      login sessions, from login',
      '                 to logout',
      '  counters/      where limits count',
      '```',
    ].join('\n');
    expect(layoutProblems(dir, readme)).toEqual([]);
  });

  it('names a folder that is missing, one listed but absent, one listed twice and one without a description', () => {
    const readme = [
      '## Layout',
      '```',
      'src/',
      '  auth/          credentials',
      '  auth/',
      '  metrics/       what the service counts',
      '  counters/      where limits count',
      '```',
      '## Next',
    ].join('\n');
    expect(layoutProblems(dir, readme)).toEqual([
      'src/auth/ is listed without saying what it owns',
      'src/metrics/ is listed but does not exist',
      'src/auth/ is listed 2 times',
      'src/sessions/ exists but is not listed',
    ]);
  });
});

describe('the module guide', () => {
  const guide = read(GUIDE);

  it('has every section the generator points to', () => {
    const generator = read('scripts/new-module.js');
    const named = [...generator.matchAll(/adding-a-feature-module\.md, "([^"]+)"/g)].map((match) => match[1]);
    expect(named.length).toBeGreaterThan(0);
    const headings = [...guide.matchAll(/^#{2,} (.+)$/gm)].map((match) => match[1]);
    expect(named.filter((name) => !headings.includes(name))).toEqual([]);
  });

  it('names only files and folders of the repository that exist (in `code`)', () => {
    const paths = [...guide.matchAll(/`((?:src|test|scripts|docs|client)\/[^`<>*\s]+)`/g)].map((match) => match[1]);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((path) => !/[{}]/.test(path) && !existsInRepo(path))).toEqual([]);
  });
});

function existsInRepo(path: string): boolean {
  try {
    readFileSync(join(ROOT, path));
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EISDIR';
  }
}
