import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * Finds the links of a Markdown file that do not resolve inside the repository. Plain string scanning rather
 * than a Markdown library: the documents use inline links, images, autolinks and reference definitions only,
 * and a checker that cannot fetch or install anything keeps `npm test` offline.
 */
export interface BrokenLink {
  file: string;
  target: string;
  reason: string;
}

const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', 'coverage', 'data', '.git']);

/** Every *.md file under `root`, repository-relative, build output and dependencies left out. */
export function markdownFiles(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory())
      return SKIPPED_DIRECTORIES.has(entry.name) ? [] : markdownFiles(root, join(dir, entry.name));
    return entry.name.endsWith('.md') ? [relative(root, join(dir, entry.name))] : [];
  });
}

/** Fenced blocks and inline code spans hold examples, not links. */
function withoutCode(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/(`+)[^`\n]*?\1/g, '');
}

export function linkTargets(text: string): string[] {
  const prose = withoutCode(text);
  const targets: string[] = [];
  for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(m[1]);
  for (const m of prose.matchAll(/<((?:https?|mailto):[^>\s]+)>/g)) targets.push(m[1]);
  for (const m of prose.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) targets.push(m[1]);
  return targets;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered -1, -2. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const lines = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').split('\n');
  for (const line of lines) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const plain = heading[1].replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const slug = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The links of `file` (repository-relative) that point nowhere, outside the repository, or to a missing heading. */
export function brokenLinks(root: string, file: string): BrokenLink[] {
  const absolute = join(root, file);
  const text = readFileSync(absolute, 'utf8');
  const broken: BrokenLink[] = [];
  for (const target of linkTargets(text)) {
    const fail = (reason: string) => broken.push({ file, target, reason });
    if (/^(https?|mailto):/i.test(target)) {
      // External addresses are kept as written and not fetched: the tests run offline.
      if (/^https?:/i.test(target) && !URL.canParse(target)) fail('not a valid URL');
      continue;
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
      fail('an address scheme other than http(s) or mailto');
      continue;
    }
    const [pathPart, fragment] = target.split('#', 2);
    const path = decodeURIComponent(pathPart);
    if (path.startsWith('/')) {
      fail('an absolute path; write it relative to this file');
      continue;
    }
    const resolved = path === '' ? absolute : resolve(dirname(absolute), path);
    const inside = relative(root, resolved);
    if (inside.startsWith('..') || inside.startsWith(sep) || resolve(root, inside) !== resolved) {
      fail('points outside the repository');
      continue;
    }
    if (!existsSync(resolved)) {
      fail('no such file');
      continue;
    }
    if (fragment !== undefined && fragment !== '') {
      if (!statSync(resolved).isFile() || !resolved.endsWith('.md')) {
        fail('an anchor into something that is not a Markdown file');
      } else if (!headingAnchors(readFileSync(resolved, 'utf8')).has(decodeURIComponent(fragment))) {
        fail(`no heading #${fragment} in ${relative(root, resolved)}`);
      }
    }
  }
  return broken;
}
