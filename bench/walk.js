'use strict';
/**
 * `npm run bench:walk`: which of the service's own files and modules one request runs through, measured, not read
 * off the code. For GET /v1/users/me (a JWT already seen, so its credential is cached) and
 * POST /v1/users/authenticatefinish (a login), on each build given:
 *
 *   WALK_ROOTS=label=dir,label=dir   built checkouts (default: this one, `npm run bench:walk` builds it first);
 *                                    `BASE=<rev>` as in bench:compare adds that revision, built in a worktree
 *
 * files and modules: V8's precise coverage (call counts) taken just before and just after one request: every
 * function of dist/src that ran for it, as its source file; a module is src/<folder>/ before the areas layout and
 * src/<area>/<module>/ after it (src/areas.json). Other work of the process in those milliseconds (a timer) would
 * count too, so each request is walked three times and only what all three ran is kept.
 *
 * crossings: calls from one module's function into another module's function, from a CPU profile sampled every
 * 10 µs over many requests (frames of node_modules and Node.js in between are skipped): the distinct caller →
 * callee pairs whose modules differ. Sampling can miss a call that returns within a few µs, so this is a floor.
 */
const { existsSync, mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve, relative } = require('node:path');
const { freePort, killAll, startService } = require('./lib/processes');
const { serviceEnv, json, seed, prepare, EMAIL, PASSWORD } = require('./lib/measure');
const { baseBuild } = require('./lib/base-build');

const HERE = resolve(__dirname, '..');

async function startInspected(root, env) {
  const inspectPort = await freePort();
  const service = await startService(env, {
    label: `walked service (${root})`,
    root,
    nodeArgs: [`--inspect=127.0.0.1:${inspectPort}`],
  });
  const [target] = await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json();
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((done, fail) => {
    socket.onopen = done;
    socket.onerror = fail;
  });
  const pending = new Map();
  let next = 1;
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.id && pending.has(message.id)) {
      pending.get(message.id)(message);
      pending.delete(message.id);
    }
  };
  const send = (method, params = {}) =>
    new Promise((done, fail) => {
      const id = next++;
      pending.set(id, (message) => (message.error ? fail(new Error(message.error.message)) : done(message.result)));
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { url: service.url, send, stop: () => (socket.close(), service.stop()) };
}

/** The module of a source file: src/<area>/<module> where src/areas.json lists areas, else src/<folder>. */
function moduleNamer(root) {
  const areas = existsSync(join(root, 'src/areas.json'))
    ? new Set(require(join(root, 'src/areas.json')).areas.map(({ area }) => area))
    : new Set();
  return (file) => {
    const parts = file.split('/');
    if (parts.length < 3) return 'src (root)';
    return areas.has(parts[1]) && parts.length > 3 ? parts.slice(0, 3).join('/') : parts.slice(0, 2).join('/');
  };
}

const sourceOf = (root, url) => {
  if (!url.startsWith('file://')) return null;
  const file = relative(join(root, 'dist'), url.slice('file://'.length));
  return file.startsWith('src/') ? file.replace(/\.js$/, '.ts') : null;
};

async function filesOfOneRequest(service, root, request) {
  await service.send('Profiler.enable');
  await service.send('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  const runs = [];
  for (let i = 0; i < 3; i++) {
    await service.send('Profiler.takePreciseCoverage');
    await request();
    const { result } = await service.send('Profiler.takePreciseCoverage');
    const files = new Set();
    for (const script of result) {
      const file = sourceOf(root, script.url);
      if (file && script.functions.some((fn) => fn.ranges[0].count > 0)) files.add(file);
    }
    runs.push(files);
  }
  await service.send('Profiler.stopPreciseCoverage');
  return [...runs[0]].filter((file) => runs.every((files) => files.has(file))).sort();
}

async function crossingsOf(service, root, request, times) {
  const moduleOf = moduleNamer(root);
  await service.send('Profiler.setSamplingInterval', { interval: 10 });
  await service.send('Profiler.start');
  for (let i = 0; i < times; i++) await request();
  const { profile } = await service.send('Profiler.stop');
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const frameOf = (node) => {
    const file = sourceOf(root, node.callFrame.url);
    return file
      ? { file, module: moduleOf(file), fn: `${file}:${node.callFrame.functionName || '(anonymous)'}` }
      : null;
  };
  const calls = new Set();
  for (const node of profile.nodes) {
    const callee = frameOf(node);
    if (!callee) continue;
    let up = parentOf.get(node.id);
    while (up !== undefined && !frameOf(byId.get(up))) up = parentOf.get(up);
    if (up === undefined) continue;
    const caller = frameOf(byId.get(up));
    if (caller.module !== callee.module) calls.add(`${caller.fn} → ${callee.fn}`);
  }
  return [...calls].sort();
}

async function walkBuild(label, root) {
  const dataDir = mkdtempSync(join(tmpdir(), 'walk-'));
  const env = serviceEnv({ DATA_DIR: dataDir, SEED_DEMO: 'false' });
  const companyId = await seed(env, root);
  const service = await startInspected(root, env);
  try {
    const { jwt } = await prepare(service.url, companyId);
    const me = async () => {
      const answer = await json(`${service.url}/v1/users/me`, { headers: { authorization: jwt } });
      if (answer.status !== 200) throw new Error(`GET /v1/users/me answered ${answer.status}`);
    };
    const login = async () => {
      const answer = await json(`${service.url}/v1/users/authenticatefinish`, {
        method: 'POST',
        body: { email: EMAIL, password: PASSWORD, company_id: companyId },
      });
      if (answer.status !== 200) throw new Error(`authenticatefinish answered ${answer.status}`);
    };
    for (let i = 0; i < 200; i++) await me();
    for (let i = 0; i < 5; i++) await login();
    const moduleOf = moduleNamer(root);
    const rows = [];
    for (const [request, run, times] of [
      ['GET /v1/users/me', me, 3000],
      ['POST /v1/users/authenticatefinish', login, 40],
    ]) {
      const files = await filesOfOneRequest(service, root, run);
      const crossings = await crossingsOf(service, root, run, times);
      rows.push({ label, request, files, modules: [...new Set(files.map(moduleOf))].sort(), crossings });
    }
    return rows;
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const builds = (process.env.WALK_ROOTS ?? `this=${HERE}`).split(',').map((pair) => pair.split('='));
  const base = process.env.BASE ? baseBuild(HERE) : null;
  if (base) builds.unshift([base.rev, base.root]);
  try {
    const rows = [];
    for (const [label, root] of builds) rows.push(...(await walkBuild(label, resolve(root))));
    console.log('| request | build | files | modules | calls across modules (floor) |');
    console.log('|---|---|---|---|---|');
    for (const row of rows) {
      console.log(
        `| ${row.request} | ${row.label} | ${row.files.length} | ${row.modules.length} | ${row.crossings.length} |`,
      );
    }
    if (process.env.WALK_VERBOSE) console.log(JSON.stringify(rows, null, 2));
  } finally {
    base?.done();
    killAll();
  }
}

main().catch((error) => {
  console.error(error);
  killAll();
  process.exit(1);
});
