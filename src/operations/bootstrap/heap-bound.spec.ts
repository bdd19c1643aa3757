import { applyHeapBound, HEAP_FLAGS, type HeapBoundProcess } from './heap-bound';

/** A process as main.ts sees it, whose execve is recorded instead of replacing the test runner. */
function fakeProcess(overrides: Partial<HeapBoundProcess> = {}) {
  const calls: Array<{ file: string; args: string[]; env: NodeJS.ProcessEnv }> = [];
  const target: HeapBoundProcess = {
    execPath: '/usr/bin/node',
    execArgv: ['--enable-source-maps'],
    argv: ['/usr/bin/node', '/srv/dist/src/main.js', '--flag'],
    env: { PATH: '/bin' },
    execve: ((file: string, args: string[], env: NodeJS.ProcessEnv) => {
      calls.push({ file, args, env });
      return undefined as never;
    }) as HeapBoundProcess['execve'],
    ...overrides,
  };
  return { target, calls };
}

describe('the heap bound main.ts applies before anything else', () => {
  it('re-executes the same entry with the bound first, keeping its own flags, arguments and environment', () => {
    const { target, calls } = fakeProcess();
    applyHeapBound(target);
    expect(calls).toEqual([
      {
        file: '/usr/bin/node',
        args: ['/usr/bin/node', ...HEAP_FLAGS, '--enable-source-maps', '/srv/dist/src/main.js', '--flag'],
        env: { PATH: '/bin', MALLOC_MMAP_THRESHOLD_: '4194304', STAFF_AUTH_HEAP_BOUND: HEAP_FLAGS.join(' ') },
      },
    ]);
    expect(HEAP_FLAGS.join(' ')).toMatch(/--max-old-space-size=\d+ --max-semi-space-size=\d+/);
  });

  it('keeps an operator’s own MALLOC_MMAP_THRESHOLD_', () => {
    const { target, calls } = fakeProcess({ env: { MALLOC_MMAP_THRESHOLD_: '65536' } });
    applyHeapBound(target);
    expect(calls[0].env.MALLOC_MMAP_THRESHOLD_).toBe('65536');
  });

  it.each([
    ['on the command line', { execArgv: ['--max-old-space-size=512'] }],
    ['with underscores', { execArgv: ['--max_old_space_size=512'] }],
    ['in NODE_OPTIONS', { env: { NODE_OPTIONS: '--expose-gc --max-old-space-size=1024' } }],
    ['by the first pass (no loop)', { env: { STAFF_AUTH_HEAP_BOUND: HEAP_FLAGS.join(' ') } }],
  ])('leaves a heap size chosen %s alone', (_where, overrides) => {
    const { target, calls } = fakeProcess(overrides);
    expect(applyHeapBound(target)).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('says how to start it bounded where Node.js cannot re-execute itself (22.13, 22.14)', () => {
    const { target } = fakeProcess({ execve: undefined });
    expect(applyHeapBound(target)).toContain(HEAP_FLAGS.join(' '));
  });
});
