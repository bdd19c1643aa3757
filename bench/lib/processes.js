'use strict';
const { spawn, execFile } = require('node:child_process');
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { promisify } = require('node:util');

const run = promisify(execFile);
const children = new Set();

/** A port free right now (the OS picks it), for a server whose own log may be too quiet to announce it. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = require('node:net').createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts the service on a free port and resolves once /health answers 200. `root`: the checkout whose build
 * (`<root>/dist`) runs, the current directory by default; `entry`: the script started (bench/probe-service.js
 * starts the same build with pieces turned off); `nodeArgs`: flags for Node.js itself (bench/walk.js: `--inspect`).
 */
async function startService(
  env,
  { label, timeoutMs = 60_000, root = '.', entry = 'dist/src/main.js', nodeArgs = [] } = {},
) {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, join(root, entry)], {
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  child.stdout.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  child.stderr.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${url}/health`)).status === 200) return { url, child, stop: () => stop(child) };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`${label} did not become healthy within ${timeoutMs} ms\n${output}`);
}

/** Starts a server process and resolves with its URL once it logs the JSON line `{"msg":"listening","url"}`. */
function startServer(script, env, { label, timeoutMs = 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let output = '';
    const timer = setTimeout(() => fail(new Error(`${label} did not start within ${timeoutMs} ms`)), timeoutMs);
    const fail = (error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${error.message}\n${output.slice(-2000)}`));
    };
    child.stdout.on('data', (chunk) => {
      output += chunk;
      for (const line of output.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          const record = JSON.parse(line);
          if (record.msg === 'listening' && record.url) {
            clearTimeout(timer);
            child.stdout.removeAllListeners('data');
            child.stdout.resume();
            resolve({ url: record.url, record, child, stop: () => stop(child) });
            return;
          }
        } catch {
          // a partial line; the rest comes with the next chunk
        }
      }
    });
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => fail(new Error(`${label} exited with ${code}`)));
  });
}

function stop(child) {
  children.delete(child);
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.removeAllListeners('exit');
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function killAll() {
  for (const child of children) child.kill('SIGKILL');
}

/** Runs the operator CLI of the build under `root` and returns its JSON result. */
async function cliAt(root, env, ...args) {
  // Builds before the areas layout kept the CLI's entry in dist/src/cli/main.js (bench:compare runs old builds).
  const entry = [join(root, 'dist/src/cli.js'), join(root, 'dist/src/cli/main.js')].find((file) => existsSync(file));
  // The CLI reads a password from standard input only: `--password P` here is written there, and the flag
  // becomes `--password -`, which every build accepts (older ones required the flag, newer ones refuse a value).
  const at = args.indexOf('--password');
  const input = at === -1 ? '' : `${args[at + 1]}\n`;
  if (at !== -1) args = [...args.slice(0, at), '--password', '-', ...args.slice(at + 2)];
  const pending = run(process.execPath, [entry, ...args], { env, timeout: 60_000 });
  pending.child.stdin.end(input);
  const { stdout } = await pending;
  return JSON.parse(stdout.trim().split('\n').pop());
}

/** Runs the operator CLI and returns its JSON result. */
function cli(env, ...args) {
  return cliAt('.', env, ...args);
}

async function load(job) {
  const { stdout } = await run(process.execPath, [`${__dirname}/../load.js`, JSON.stringify(job)], {
    timeout: (job.duration + 60) * 1000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split('\n').pop());
}

module.exports = { startServer, startService, stop, killAll, cli, cliAt, load, freePort };
