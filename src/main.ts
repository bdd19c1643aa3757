import './platform/common/runtime/compile-cache';
import { applyHeapBound } from './operations/bootstrap/heap-bound';

// Before anything else is loaded: the process may replace itself here with the heap bound applied (same PID).
const unbounded = applyHeapBound();

void import('./serve').then(({ serve, startFailure }) =>
  serve(unbounded).catch((error: unknown) => {
    process.stderr.write(`Start failed: ${startFailure(error)}\n`);
    process.exit(1);
  }),
);
