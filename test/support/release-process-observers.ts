import { PerformanceObserver } from 'node:perf_hooks';

/**
 * jest gives each test file a realm of its own, but a worker's built-in modules are one for all its files. A
 * PerformanceObserver left observing keeps its callback's realm alive for the rest of the worker's run: the whole
 * file, its app and its database. prom-client starts one (its GC histogram) per registry and never stops it, and
 * the service registers its process metrics once per process, which under jest is once per file. Heap snapshots of
 * a worker found it among the holders of finished files' realms (the fast phase's workers reach 2 GB by its end).
 * So the observers a file starts are stopped after it, and `observe` is Node's own again (a stand-in left in place
 * would itself keep this file's realm).
 */
const started = new Set<PerformanceObserver>();
const observe = Object.getOwnPropertyDescriptor(PerformanceObserver.prototype, 'observe')!;

Object.defineProperty(PerformanceObserver.prototype, 'observe', {
  ...observe,
  value(this: PerformanceObserver, ...args: Parameters<PerformanceObserver['observe']>) {
    started.add(this);
    return (observe.value as PerformanceObserver['observe']).apply(this, args);
  },
});

afterAll(() => {
  Object.defineProperty(PerformanceObserver.prototype, 'observe', observe);
  for (const observer of started) observer.disconnect();
  started.clear();
});
