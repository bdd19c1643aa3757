import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { loginAndReadAProduct } from '../client/example';
import { readProducts } from '../client/examples/read-products';
import { createStaffAuthClient } from '../client/src';
import { accepting, alive, descendants, NPM } from './support/process-tree';
import { logRecords } from './support/processes';
import { freePort } from './support/redis-server';

const ROOT = join(__dirname, '..');
const run = promisify(execFile);

// A fresh clone builds the service and the page before its first start, on a machine shared with other suites.
jest.setTimeout(420_000);

/** The README's quick start: its text up to the next section. */
function quickStart(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Quick start');
  // The next heading; the shell comments of its examples (`# 1. …`, `# → …`) start with no capital letter.
  const end = start + 3 + readme.slice(start + 3).search(/\n#{1,2} [A-Z]/);
  return readme.slice(start, end);
}

/** Every fenced block of a Markdown text: its language and contents, and the text just before it. */
function codeBlocks(markdown: string): Array<{ lang: string; code: string; before: string }> {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({
    lang: match[1],
    code: match[2],
    before: markdown.slice(Math.max(0, match.index - 300), match.index),
  }));
}

/**
 * The install commands of client/README.md: test/client-package-install.embedded-only.e2e-spec.ts runs each
 * (`npm pack ./client` into an empty project, `npm install --install-links` of the built folder).
 */
const CLIENT_INSTALL_COMMANDS = [
  'npm pack ./client',
  'npm install /path/to/staff-auth-service/staff-auth-client-0.1.0.tgz',
  'npm run client:build',
  'npm install --install-links /path/to/staff-auth-service/client',
];

/** The commands of a shell block, comments and blank lines left out. */
const commands = (code: string) =>
  code
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

/**
 * client/README.md's demo, run as a reader runs it but in this process: its one import is the package's entry
 * (here its source), `process.env` and `console.log` are the ones given. Answers what it printed.
 */
async function runClientDemo(code: string, env: Record<string, string>): Promise<string> {
  const body = code.replace("import { createStaffAuthClient } from '@staff-auth/client';\n", '');
  expect(body).not.toMatch(/^import /m);
  const printed: string[] = [];
  const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
    ...args: string[]
  ) => (...values: unknown[]) => Promise<void>;
  await new AsyncFunction('createStaffAuthClient', 'process', 'console', body)(
    createStaffAuthClient,
    { env },
    { log: (line: string) => printed.push(line) },
  );
  return printed.map((line) => `${line}\n`).join('');
}

interface Step {
  command: string;
  expected: unknown;
}

/** The login block: each curl command (continuation lines joined) and the JSON shown after it as `# → …`. */
function loginSteps(section: string): Step[] {
  const block = section.split('```sh\n')[2].split('```')[0];
  const steps: Step[] = [];
  let command = '';
  let answer: string | undefined;
  const finish = () => {
    if (answer !== undefined) steps.push({ command, expected: JSON.parse(answer) });
    command = '';
    answer = undefined;
  };
  for (const line of block.split('\n')) {
    if (line.startsWith('# → ')) answer = line.slice(4);
    else if (line.startsWith('#    ') && answer !== undefined) answer += line.slice(5);
    else if (line.startsWith('#') || line.trim() === '') finish();
    else command += line.endsWith('\\') ? `${line.slice(0, -1)} ` : line;
  }
  finish();
  return steps;
}

/**
 * The answer matches what the README shows: the same fields at every level, equal values, except where the
 * README abbreviates (`…`) or shows an example date (then only the form is compared).
 */
function expectLike(actual: unknown, shown: unknown, path = '$'): void {
  if (typeof shown === 'string' && shown.includes('…')) {
    expect({ path, type: typeof actual }).toEqual({ path, type: 'string' });
  } else if (typeof shown === 'string' && /^\d{4}-\d\d-\d\dT/.test(shown)) {
    expect({ path, value: actual }).toEqual({
      path,
      value: expect.stringMatching(/^\d{4}-\d\d-\d\dT23:59:59\+07:00$/),
    });
  } else if (Array.isArray(shown)) {
    expect({ path, length: (actual as unknown[]).length }).toEqual({ path, length: shown.length });
    shown.forEach((item, i) => expectLike((actual as unknown[])[i], item, `${path}[${i}]`));
  } else if (shown && typeof shown === 'object') {
    expect({ path, keys: Object.keys(actual as object).sort() }).toEqual({ path, keys: Object.keys(shown).sort() });
    for (const [key, value] of Object.entries(shown))
      expectLike((actual as Record<string, unknown>)[key], value, `${path}.${key}`);
  } else {
    expect({ path, value: actual }).toEqual({ path, value: shown });
  }
}

/**
 * The README's quick start, as a newcomer follows it, in a fresh clone of this repository (node_modules linked
 * in place of `npm ci`, which the README names first): `npm start`, the three login calls run with curl as
 * written (the printed password and the token pasted in, the port moved off 3000), the client examples on the
 * demo data of that same start (docs/client.md's and client/README.md's, each answer compared with the one
 * shown), `/admin`, `/docs`, then Ctrl-C's SIGINT to npm's PID, after which nothing is left running. Every code
 * block of the README is one of these: a new block fails the test until it is run here too.
 */
describe('the README quick start, in a fresh clone', () => {
  let clone: string;
  let child: ChildProcess | undefined;
  let tree: number[] = [];

  beforeAll(() => {
    clone = mkdtempSync(join(tmpdir(), 'staff-auth-clone-'));
    execFileSync('git', ['clone', '--quiet', ROOT, clone]);
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
  });

  afterAll(() => {
    for (const pid of [child?.pid, ...tree]) if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(clone, { recursive: true, force: true });
  });

  it('names the commands, then starts, logs in with its three calls, serves /admin and /docs, and stops', async () => {
    const section = quickStart();
    expect(section).toMatch(/Node\.js 24 LTS \(24\.11\+\) or 22 LTS \(22\.13\+\); Node\.js 20 is not supported/);
    expect(section).toContain('npm ci\nnpm start');
    expect(section).toMatch(/`npm run test:unit` needs nothing else/);
    // Every block of the README is run below: the start (`npm ci` is the node_modules link) and the login calls.
    const blocks = codeBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    expect(blocks.map((block) => block.code)).toEqual([
      expect.stringMatching(/^npm ci\nnpm start /),
      expect.any(String),
    ]);
    expect(blocks[1].code).toBe(section.split('```sh\n')[2].split('```')[0]);
    const steps = loginSteps(section);
    expect(steps.map((step) => /curl -s localhost:3000(\S+)/.exec(step.command)?.[1])).toEqual([
      '/v1/users/authenticateinit',
      '/v1/users/authenticatefinish',
      '/v1/users/me',
    ]);

    const port = await freePort();
    const { PATH, HOME } = process.env;
    child = spawn(NPM, ['start'], {
      cwd: clone,
      env: { PATH: PATH!, HOME: HOME!, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const exited = new Promise((done) => child!.once('exit', (code, signal) => done({ code, signal })));
    const deadline = Date.now() + 360_000;
    while (!logRecords(out).some((record) => record.msg === 'listening')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start did not listen:\n${out}`);
      await sleep(250);
    }
    tree = descendants(child.pid!);
    const listening = logRecords(out).find((record) => record.msg === 'listening')!;
    const base = `http://127.0.0.1:${port}`;
    expect(listening).toMatchObject({ url: base, admin: `${base}/admin`, docs: `${base}/docs` });
    const password = /^\s+password:\s+(\S+)$/m.exec(out)?.[1];
    expect(password).toBeDefined();

    let jwt = '';
    for (const step of steps) {
      const command = step.command
        .replaceAll('localhost:3000', `127.0.0.1:${port}`)
        .replaceAll('PASTE-PASSWORD', password!)
        .replaceAll('PASTE-JWT', jwt);
      const { stdout } = await run('sh', ['-c', command]);
      const answer = JSON.parse(stdout) as { jwt?: string };
      expectLike(answer, step.expected);
      jwt = answer.jwt ?? jwt;
    }

    await runClientExamples(base, password!);

    for (const path of ['/admin', '/docs']) {
      const page = await fetch(`${base}${path}`);
      expect({ path, status: page.status, type: page.headers.get('content-type') }).toEqual({
        path,
        status: 200,
        type: expect.stringMatching(/^text\/html/),
      });
    }

    child.kill('SIGINT');
    expect(await exited).toEqual({ code: 0, signal: null });
    const until = Date.now() + 5000;
    while (tree.some(alive) && Date.now() < until) await sleep(100);
    expect(tree.filter(alive)).toEqual([]);
    expect(await accepting(port)).toBe(false);
  });
});

/**
 * The client examples on the demo data of this start: docs/client.md's readProducts (client/examples/, which
 * test/client-package.embedded-only.e2e-spec.ts holds equal to the document) and its openapi-fetch example
 * (client/example.ts), and client/README.md's demo with the output it shows. Every block of client/README.md is
 * accounted for: the demo and its output here, the install commands in the client-package-install test.
 */
async function runClientExamples(base: string, password: string): Promise<void> {
  const never = async (): Promise<string> => {
    throw new Error('the demo owner has no TOTP');
  };
  const products = await readProducts(base, 'owner@demo.example', password, never);
  const doc = readFileSync(join(ROOT, 'docs', 'client.md'), 'utf8');
  const shownList = /answers the \w+ products of Demo Company A: `\[([\s\S]*?), …\]`/.exec(doc)?.[1];
  expect(shownList).toBeDefined();
  const shown = [...shownList!.replace(/\n/g, ' ').matchAll(/'([^']*)'/g)].map((match) =>
    match[1].replace(/ {2,}/g, ' '),
  );
  expect(shown.length).toBeGreaterThan(0);
  expect(products.slice(0, shown.length)).toEqual(shown);
  // Each answer a product, none an error status.
  for (const line of products) expect(line).toMatch(/^[A-Z0-9-]+: .+, \d+$/);

  const first = await loginAndReadAProduct(base, 'owner@demo.example', password);
  expect(first).toEqual({
    employee: 'owner@demo.example',
    company: 'Demo Company A',
    permissions: ['*'],
    product: {
      id: expect.any(Number),
      name: shown[0].replace(/^[A-Z0-9-]+: (.+), \d+$/, '$1'),
      price: expect.any(Number),
    },
    remaining: expect.stringMatching(/^\d+$/),
  });

  const readme = readFileSync(join(ROOT, 'client', 'README.md'), 'utf8');
  const blocks = codeBlocks(readme);
  const demo = blocks.filter((block) => block.before.includes('<!-- client-demo:'));
  const output = blocks.filter((block) => block.before.includes('It prints the orders of Demo Company A:'));
  expect([demo.length, output.length]).toEqual([1, 1]);
  const installs = blocks.filter((block) => !demo.includes(block) && !output.includes(block));
  expect(installs.map((block) => block.lang)).toEqual(installs.map(() => 'sh'));
  expect(installs.flatMap((block) => commands(block.code))).toEqual(CLIENT_INSTALL_COMMANDS);

  const printed = await runClientDemo(demo[0].code, { STAFF_AUTH_URL: base, DEMO_PASSWORD: password });
  expect(printed).toBe(output[0].code);
}
