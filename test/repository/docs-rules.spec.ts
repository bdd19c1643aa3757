import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { docsProblems } from './docs-rules';

const ROOT = resolve(__dirname, '..', '..');

describe('the README and docs/', () => {
  it('a README of at most 200 lines, no "§", issue number or team path, every document in its table of contents', () => {
    expect(docsProblems(ROOT)).toEqual([]);
  });
});

describe('the documentation check', () => {
  let dir: string;
  const write = (path: string, text: string) => writeFileSync(join(dir, path), text);
  const toc = (...docs: string[]) => ['## Documentation', '', ...docs.map((doc) => `- [${doc}](${doc})`)].join('\n');

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'docs-rules-'));
    mkdirSync(join(dir, 'docs'));
    write('docs/api.md', '# API\n');
    write('docs/contract.md', '# Contract\n\nAs the source §8 fixes it (issue 3, ../shared/spec/).\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('passes a short README that links every document; the specification copies may say anything', () => {
    write('README.md', `# Title\n\n${toc('docs/api.md', 'docs/contract.md')}\n`);
    expect(docsProblems(dir)).toEqual([]);
  });

  it('names a README over 200 lines, each forbidden word with its line, and a document left out', () => {
    write('README.md', `# Title\n\n${toc('docs/api.md')}\n${'line\n'.repeat(200)}`);
    write('docs/api.md', '# API\n\nSee the source §5.\nFixed in Issue 12.\nCopied from shared/spec/contract.md.\n');
    expect(docsProblems(dir)).toEqual([
      'README.md has 205 lines, more than 200',
      'docs/api.md:3 names "§": See the source §5.',
      'docs/api.md:4 names an issue number: Fixed in Issue 12.',
      'docs/api.md:5 names the team path "shared/spec": Copied from shared/spec/contract.md.',
      "docs/contract.md is not linked from the README's table of contents",
    ]);
  });

  it('names a README without a table of contents', () => {
    write('README.md', '# Title\n\n[api](docs/api.md)\n');
    expect(docsProblems(dir)).toEqual([
      'README.md has no table of contents under "## Documentation"',
      "docs/api.md is not linked from the README's table of contents",
      "docs/contract.md is not linked from the README's table of contents",
    ]);
  });
});
