'use strict';
/**
 * jest's runtime, with V8's code cache kept for the life of a worker (jest.config.js `runtime`).
 *
 * jest gives every test file a module registry of its own and compiles each module again for it with
 * `vm.compileFunction`, which V8's own compilation cache does not serve: every end-to-end file compiled the whole
 * app (about 3,000 modules, 0.7 s of a core) before its first test. Here the second file that loads a module
 * compiles it with `produceCachedData` and every later one from that data: the same code, parsed once per worker.
 * V8 checks the data against the source and compiles normally when it does not match (`cachedDataRejected`).
 * A module is cached by its file name and its exact (transformed) source, so a changed file is compiled anew.
 *
 * It hooks one method of jest-runtime's internals (`executor.compile`; jest is pinned in package.json): if a
 * jest upgrade moves it, this throws at the first test file instead of silently losing the cache.
 */
const { compileFunction } = require('node:vm');
const Runtime = require('jest-runtime').default;

const DYNAMIC_IMPORT = /\bimport\s*\(/;

/** File name → its source, and once it has been seen twice, V8's code cache for it. */
const compiled = new Map();

class CodeCacheRuntime extends Runtime {
  constructor(...args) {
    super(...args);
    const executor = this.executor;
    if (typeof executor?.compile !== 'function' || !Array.isArray(executor.injectedModuleParameters)) {
      throw new Error('jest-runtime changed: test/support/code-cache-runtime.js no longer finds executor.compile');
    }
    const compileUncached = executor.compile.bind(executor);
    executor.compile = (source, filename) => {
      const vmContext = executor.environment.getVmContext();
      if (vmContext == null) return null;
      // As jest-runtime names them (ModuleExecutor.compile), so stack traces read the same.
      const scriptFilename = executor.resolution.isCoreModule(filename) ? `jest-nodejs-core-${filename}` : filename;
      const seen = compiled.get(scriptFilename);
      const again = seen !== undefined && seen.source === source;
      let compiledFunction;
      try {
        compiledFunction = compileFunction(source, executor.injectedModuleParameters, {
          filename: scriptFilename,
          cachedData: again ? seen.data : undefined,
          // Produced on the second sighting, not the first: then V8 has the module's functions compiled already,
          // and a file that loads a module once pays nothing for the cache.
          produceCachedData: again && seen.data === undefined,
          // Only for a module that can call import(): Node keeps the callback in a process-wide registry for as
          // long as the module's script lives, and V8 shares the scripts of `new Function` code (ajv's validators,
          // find-my-way's matchers) with later files' realms, so each file's realm kept the one before it alive.
          importModuleDynamically: DYNAMIC_IMPORT.test(source)
            ? (specifier, _function, attributes, ...rest) =>
                executor.dynamicImport(specifier, scriptFilename, vmContext, attributes, rest[0])
            : undefined,
          parsingContext: vmContext,
        });
      } catch {
        // A syntax error and the like: jest's own compile reports it as jest does.
        return compileUncached(source, filename);
      }
      // A copy: the data V8 hands back belongs to the file's realm, which it would keep alive for the worker's life.
      if (compiledFunction.cachedDataProduced)
        compiled.set(scriptFilename, { source, data: Buffer.from(compiledFunction.cachedData) });
      else if (!again) compiled.set(scriptFilename, { source, data: undefined });
      return compiledFunction;
    };
  }
}

module.exports = CodeCacheRuntime;
module.exports.default = CodeCacheRuntime;
