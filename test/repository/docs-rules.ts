import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The copies of the binding specifications: kept byte-identical, so never held to these rules. */
export const SPEC_COPIES = ['docs/contract.md', 'docs/staff-auth-and-rate-limit.md'];

export const README_MAX_LINES = 200;

/** Words a reader outside the team cannot follow: section signs, issue numbers, the team's folders. */
const FORBIDDEN: [RegExp, string][] = [
  [/§/, '"§"'],
  [/issue \d+/i, 'an issue number'],
  [/shared\/spec/, 'the team path "shared/spec"'],
];

/** The README's table of contents: the section `## Documentation`, up to the next `## ` heading. */
function tableOfContents(readme: string): string {
  return /^## Documentation\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(readme)?.[1] ?? '';
}

/**
 * What is wrong with the README and docs/*.md of the repository at `root`: the README over its length, a
 * forbidden word (with file and line), a document of docs/ the README's table of contents does not link.
 */
export function docsProblems(root: string): string[] {
  const problems: string[] = [];
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
  if (lines > README_MAX_LINES) problems.push(`README.md has ${lines} lines, more than ${README_MAX_LINES}`);

  const docs = existsSync(join(root, 'docs'))
    ? readdirSync(join(root, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .sort()
        .map((name) => `docs/${name}`)
    : [];
  for (const file of ['README.md', ...docs.filter((doc) => !SPEC_COPIES.includes(doc))]) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const [pattern, what] of FORBIDDEN)
          if (pattern.test(line)) problems.push(`${file}:${i + 1} names ${what}: ${line.trim()}`);
      });
  }

  const contents = tableOfContents(readme);
  if (contents === '') problems.push('README.md has no table of contents under "## Documentation"');
  for (const doc of docs)
    if (!contents.includes(`](${doc})`)) problems.push(`${doc} is not linked from the README's table of contents`);
  return problems;
}
