import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { brokenLinks, headingAnchors, markdownFiles } from './markdown-links';

const ROOT = resolve(__dirname, '..', '..');

describe('links in the repository’s Markdown', () => {
  const files = markdownFiles(ROOT);

  it('covers README.md and docs/', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/contract.md', 'docs/adding-a-feature-module.md']));
  });

  it.each(files)('every link in %s resolves inside the repository', (file) => {
    expect(brokenLinks(ROOT, file)).toEqual([]);
  });
});

describe('the link checker', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'links-'));
    mkdirSync(join(dir, 'repo', 'docs'), { recursive: true });
    writeFileSync(join(dir, 'outside.md'), '# Outside\n');
    writeFileSync(join(dir, 'repo', 'docs', 'guide.md'), '# The guide (v2)\n\n## Steps\n\n## Steps\n');
    writeFileSync(
      join(dir, 'repo', 'README.md'),
      [
        '# Title',
        '[ok](docs/guide.md) [ok](docs/guide.md#the-guide-v2) [ok](docs/guide.md#steps-1) [ok](#title)',
        '<http://127.0.0.1:3000/admin> [ext](https://example.com/x) `[code](missing.md)`',
        '[gone](docs/missing.md) [out](../outside.md) [anchor](docs/guide.md#nope) [self](#nope) [abs](/docs/guide.md)',
        '```',
        '[in a fence](nowhere.md)',
        '```',
        '[ref]: docs/also-missing.md',
      ].join('\n'),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports exactly the missing file, the escape, the missing headings, the absolute path and the bad reference', () => {
    const found = brokenLinks(join(dir, 'repo'), 'README.md').map((b) => `${b.target}: ${b.reason}`);
    expect(found).toEqual([
      'docs/missing.md: no such file',
      '../outside.md: points outside the repository',
      'docs/guide.md#nope: no heading #nope in docs/guide.md',
      '#nope: no heading #nope in README.md',
      '/docs/guide.md: an absolute path; write it relative to this file',
      'docs/also-missing.md: no such file',
    ]);
  });

  it('derives GitHub’s heading anchors', () => {
    const anchors = headingAnchors('## Administration page (/admin)\n### `npm test` and *you*\n# A\n# A\n');
    expect([...anchors]).toEqual(['administration-page-admin', 'npm-test-and-you', 'a', 'a-1']);
  });
});
