/**
 * docs/contract.md "Runtime": an instance keeps its resident memory under 300 MiB whatever it serves. Left
 * alone, V8 sizes its heap from the machine (Node.js 24: a 4 GiB old space and 64 MiB semi-spaces on this
 * project's 24 GiB machines) and lets garbage pile up to that before collecting hard, so RSS tracks the machine,
 * not the load. The bound travels with the process rather than with an npm script: however the service is
 * started (`npm start`, `node dist/src/main.js` in a container, the fleet), main.ts first re-executes itself in
 * place (same PID, so signals and supervisors are unaffected) with these flags, unless the operator chose a
 * heap size of their own (`NODE_OPTIONS=--max-old-space-size=512`, or the flag on the command line).
 */
export const HEAP_FLAGS = ['--max-old-space-size=128', '--max-semi-space-size=16'];

/** glibc returns freed blocks over 4 MiB to the system at once instead of keeping them in its arenas. */
const MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: '4194304' };

const OLD_SPACE_FLAG = /^--max[-_]old[-_]space[-_]size(=|$)/;
const BOUND_MARK = 'STAFF_AUTH_HEAP_BOUND';

export interface HeapBoundProcess {
  execArgv: string[];
  argv: string[];
  env: NodeJS.ProcessEnv;
  execPath: string;
  execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never;
}

/** Whether the operator (or an earlier pass) already chose the heap size. */
export function heapChosen(target: Pick<HeapBoundProcess, 'execArgv' | 'env'>): boolean {
  const nodeOptions = (target.env.NODE_OPTIONS ?? '').split(/\s+/);
  return (
    target.env[BOUND_MARK] !== undefined ||
    [...target.execArgv, ...nodeOptions].some((flag) => OLD_SPACE_FLAG.test(flag))
  );
}

/**
 * Re-executes the process with the heap bound when none is set; returns (only when it does not re-execute) a
 * note for the log when the bound could not be applied.
 */
export function applyHeapBound(target: HeapBoundProcess = process as HeapBoundProcess): string | undefined {
  if (heapChosen(target)) return undefined;
  if (typeof target.execve !== 'function') {
    return `this Node.js cannot re-execute itself (process.execve): start it with ${HEAP_FLAGS.join(' ')}`;
  }
  const env = { ...MALLOC_ENV, ...target.env, [BOUND_MARK]: HEAP_FLAGS.join(' ') };
  return target.execve(
    target.execPath,
    [target.execPath, ...HEAP_FLAGS, ...target.execArgv, ...target.argv.slice(1)],
    env,
  );
}
