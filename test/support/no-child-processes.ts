import childProcess from 'node:child_process';
// Node's cluster module keeps the `fork` it finds when first loaded: loaded while a file's stand-in is in place,
// it would keep that file's whole realm (its app, its database) alive for the rest of the worker's run.
import 'node:cluster';

/**
 * The fast projects run in this process only: a file found to start another one belongs to the system projects
 * (test/support/suite-kinds.js finds those from their imports). This stops one that slips past the finder, e.g.
 * through a library, instead of letting it load the fast run. Built-in modules are shared by every file a
 * worker runs, so the originals come back after the file.
 */
const NAMES = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
const originals = NAMES.map((name) => [name, childProcess[name]] as const);

beforeAll(() => {
  for (const name of NAMES) {
    Object.defineProperty(childProcess, name, {
      configurable: true,
      writable: true,
      value: () => {
        throw new Error(
          `${expect.getState().testPath} started a child process (${name}) in a fast jest project; ` +
            'a file that starts processes runs in the system projects (test/support/suite-kinds.js).',
        );
      },
    });
  }
});

afterAll(() => {
  for (const [name, original] of originals) {
    Object.defineProperty(childProcess, name, { configurable: true, writable: true, value: original });
  }
});
