import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/** ESLint, with the repository's config, on `source` as if it were the file `path` (nothing is written). */
export function lintSource(path: string, source: string): { status: number | null; out: string } {
  const eslint = join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js');
  const result = spawnSync(process.execPath, [eslint, '--stdin', '--stdin-filename', path], {
    cwd: ROOT,
    input: source,
    encoding: 'utf8',
  });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}
