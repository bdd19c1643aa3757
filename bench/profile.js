'use strict';
/**
 * `node bench/profile.js`: the built service (embedded database, memory counters) under load on
 * GET /v1/users/me with a JWT, profiled with `node --cpu-prof`; prints self time by function and by file, as
 * µs per request. PROFILE_SECONDS (default 10) of load after 3 s of warm-up; PROFILE_DIR keeps the .cpuprofile;
 * PROFILE_ROOT profiles another built checkout (an older commit's, for a regression); PROFILE_ENV adds settings
 * (JSON, e.g. {"REDIS_URL":"redis://127.0.0.1:6379"} for Redis counters).
 */
const { mkdtempSync, readdirSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, relative } = require('node:path');
const { spawn } = require('node:child_process');
const { freePort, load } = require('./lib/processes');
const { serviceEnv, seed, prepare } = require('./lib/measure');

async function healthy(url, child) {
  for (let i = 0; i < 600 && child.exitCode === null; i++) {
    try {
      if ((await fetch(`${url}/health`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('service did not start');
}

function summarize(profile, requests) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  const intervals = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    self.set(node, (self.get(node) ?? 0) + (intervals[i] ?? 0));
  }
  const fns = new Map();
  const files = new Map();
  for (const [node, us] of self) {
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url ? relative(process.cwd(), url.replace('file://', '')) : '(native)';
    const fn = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
    fns.set(fn, (fns.get(fn) ?? 0) + us);
    const group = file.startsWith('node_modules/')
      ? file
          .split('/')
          .slice(0, file.split('/')[1].startsWith('@') ? 3 : 2)
          .join('/')
      : file.startsWith('dist/')
        ? file
        : functionName.startsWith('(')
          ? functionName
          : file || '(native)';
    files.set(group, (files.get(group) ?? 0) + us);
  }
  const top = (map, n) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => `${(us / requests).toFixed(2).padStart(7)} µs  ${name}`)
      .join('\n');
  // PROFILE_CALLERS=name,name: where the self time of those functions comes from, three frames up.
  const parents = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node);
  const callers = new Map();
  for (const name of (process.env.PROFILE_CALLERS ?? '').split(',').filter(Boolean)) {
    for (const [node, us] of self) {
      if (node.callFrame.functionName !== name) continue;
      const chain = [];
      for (let up = parents.get(node.id); up && chain.length < 4; up = parents.get(up.id)) {
        chain.push(
          `${up.callFrame.functionName || '(anonymous)'}@${up.callFrame.url.split('/').slice(-2).join('/')}:${up.callFrame.lineNumber + 1}`,
        );
      }
      const key = `${name} <- ${chain.join(' <- ')}`;
      callers.set(key, (callers.get(key) ?? 0) + us);
    }
  }
  return `by file/package (µs per request):\n${top(files, 40)}\n\nby function:\n${top(fns, 60)}\n\ncallers:\n${top(callers, 30)}`;
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'staff-auth-profile-'));
  const profileDir = process.env.PROFILE_DIR ?? mkdtempSync(join(tmpdir(), 'staff-auth-cpuprof-'));
  const seconds = Number(process.env.PROFILE_SECONDS ?? 10);
  const env = serviceEnv({ DATA_DIR: dataDir, SEED_DEMO: 'false' });
  const extra = process.env.PROFILE_ENV ? JSON.parse(process.env.PROFILE_ENV) : {};
  try {
    const root = process.env.PROFILE_ROOT ?? '.';
    const companyId = await seed({ ...env, ...extra }, root);
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [
        '--cpu-prof',
        '--cpu-prof-dir',
        profileDir,
        ...(process.env.PROFILE_NODE_ARGS ?? '').split(' ').filter(Boolean),
        join(root, 'dist/src/main.js'),
      ],
      {
        env: { ...env, PORT: String(port), ...extra },
        stdio: 'inherit',
      },
    );
    const url = `http://127.0.0.1:${port}`;
    await healthy(url, child);
    const { jwt } = await prepare(url, companyId);
    const job = { url: `${url}/v1/users/me`, headers: { authorization: jwt }, connections: 50 };
    await load({ ...job, duration: 3 });
    const result = await load({ ...job, duration: seconds });
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
    const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
    const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8'));
    // The whole run is in the profile (start, warm-up, shutdown); per request is an upper bound, read it as shares.
    process.stdout.write(`${result.total} requests measured, ${Math.round(result.rps)} req/s\n`);
    process.stdout.write(`${summarize(profile, result.total * (1 + 3 / seconds))}\n`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    if (!process.env.PROFILE_DIR) rmSync(profileDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
