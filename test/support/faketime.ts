import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Debian's libfaketime (apt-get install faketime; .ci/run installs it), the multi-threaded flavour for Node: the
 * `LD_PRELOAD` of a child process whose clock a test sets. A test that needs it fails without it, never skips.
 */
export function libfaketime(): string {
  const found = readdirSync('/usr/lib', { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join('/usr/lib', entry.name, 'faketime', 'libfaketimeMT.so.1'))
    .find((path) => existsSync(path));
  if (!found) throw new Error('libfaketime is missing: apt-get install faketime (the test does not skip without it)');
  return found;
}
