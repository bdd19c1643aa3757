'use strict';
/**
 * Loaded into a service under test (`NODE_OPTIONS="--expose-gc --require <this file>"`): SIGUSR2 collects all
 * garbage and writes the process's memory as one JSON line on standard error, `{"memoryAfterGc": {...}}`; with
 * HEAP_SNAPSHOT_DIR set it then writes a heap snapshot there too (`"snapshot"`: its path).
 *
 * A test of what a process holds must not read garbage V8 has not collected yet: under load V8 lets its old
 * generation grow to a few times what is live and gives the rest back only when its memory reducer runs, after
 * some 20-40 s of idleness. A reading before then measures that timing, not memory held.
 *
 * Writing a snapshot costs the process about 150 MiB of C++ memory that glibc keeps afterwards: RSS readings
 * after one measure the snapshot, not the service.
 */
const { join } = require('node:path');
const { writeHeapSnapshot } = require('node:v8');

process.on('SIGUSR2', () => {
  global.gc();
  // A second pass frees what the first one's finalizers (weak callbacks, FinalizationRegistry) released.
  setImmediate(() => {
    global.gc();
    const memoryAfterGc = process.memoryUsage();
    const dir = process.env.HEAP_SNAPSHOT_DIR;
    const snapshot = dir
      ? writeHeapSnapshot(join(dir, `service-${process.pid}-${Date.now()}.heapsnapshot`))
      : undefined;
    process.stderr.write(`${JSON.stringify({ memoryAfterGc, snapshot })}\n`);
  });
});
