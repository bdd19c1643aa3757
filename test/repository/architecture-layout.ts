import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** One line of docs/architecture.md's layout block: a path (a folder ends with `/`) and what it owns. */
export interface LayoutEntry {
  path: string;
  description: string;
}

/**
 * The entries of the code block under `## Layout`: top-level lines (`admin/   …`) and the indented lines under
 * `src/` (`  identity/auth/   …`, taken as `src/identity/auth/`). A continuation line (only indentation, then text) adds to
 * the description of the entry above it.
 */
export function layoutEntries(markdown: string): LayoutEntry[] {
  const section = /^## Layout\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(markdown)?.[1] ?? '';
  const block = /^```\n([\s\S]*?)^```/m.exec(section)?.[1] ?? '';
  const entries: LayoutEntry[] = [];
  for (const line of block.split('\n')) {
    if (line.trim() === '') continue;
    const entry = /^( {2})?(\S+)(?: {2,}(\S.*))?$/.exec(line);
    if (entry) {
      const [, indent, path, description = ''] = entry;
      entries.push({ path: indent ? `src/${path}` : path, description });
    } else if (entries.length > 0) {
      entries[entries.length - 1].description += ` ${line.trim()}`;
    }
  }
  return entries;
}

/**
 * What is wrong with docs/architecture.md's layout (with the layouts of `more` documents, e.g.
 * docs/feature-modules.md) against the tree at `root`: every line a problem, none when it matches.
 */
export function layoutProblems(root: string, markdown: string, ...more: string[]): string[] {
  const entries = [markdown, ...more].flatMap(layoutEntries);
  const problems: string[] = [];
  if (entries.length === 0) return ['docs/architecture.md has no layout block under "## Layout"'];
  for (const { path, description } of entries) {
    if (path === 'src/') continue;
    // `scripts/check-boundaries.js` and the like: the first word is the path.
    if (!existsSync(join(root, path))) problems.push(`${path} is listed but does not exist`);
    else if (path.endsWith('/') && !statSync(join(root, path)).isDirectory()) problems.push(`${path} is not a folder`);
    if (description.trim() === '') problems.push(`${path} is listed without saying what it owns`);
  }
  const listed = new Map<string, number>();
  for (const { path } of entries) listed.set(path, (listed.get(path) ?? 0) + 1);
  const folders = (dir: string) =>
    readdirSync(join(root, dir))
      .sort()
      .filter((name) => statSync(join(root, dir, name)).isDirectory())
      .map((name) => `${dir}/${name}`);
  // Every area of src/ and every module of an area.
  for (const area of folders('src')) {
    for (const folder of [area, ...folders(area)]) {
      const count = listed.get(`${folder}/`) ?? 0;
      if (count === 0) problems.push(`${folder}/ exists but is not listed`);
      if (count > 1) problems.push(`${folder}/ is listed ${count} times`);
    }
  }
  return problems;
}
