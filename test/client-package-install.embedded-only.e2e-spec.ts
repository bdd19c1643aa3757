import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { NPM } from './support/process-tree';
import { CHILD_TEST_ENV, killChildren, requireBuild, type RunningService, startService } from './support/processes';

// A first start (migrations, demo data), `npm pack` (a tsc build) and two installs, on a machine shared with others.
jest.setTimeout(300_000);

const ROOT = join(__dirname, '..');
const run = promisify(execFile);

/** The Markdown block after `marker` (a fenced block's contents). */
function blockAfter(text: string, marker: string): string {
  const at = text.indexOf(marker);
  expect(at).toBeGreaterThan(-1);
  return /```\w*\n([\s\S]*?)```/.exec(text.slice(at))![1];
}

/**
 * npm as a user runs it in that folder: none of the npm_* settings that `npm test` / `npx jest` put in this
 * process's environment (a prefix among them would point npm back at this repository).
 */
function npm(cwd: string, ...args: string[]) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'NODE_OPTIONS'),
  );
  return run(NPM, args, { cwd, env, timeout: 120_000 });
}

/** Runs a TypeScript file with Node's own type stripping, as the client's README says to. */
async function node(cwd: string, file: string, env: Record<string, string>): Promise<string> {
  const { stdout } = await run(process.execPath, [file], {
    cwd,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
    timeout: 60_000,
  });
  return stdout;
}

/**
 * Issue 40: the client package installed as its README says, in projects that are not this repository, and its
 * examples run from there against a first start's demo data: `npm pack ./client` (built by its prepack script) and
 * the tarball installed into an empty project; the built folder installed with `npm install --install-links`.
 * Both come with their own openapi-fetch and no install script. npm may use its cache (`--prefer-offline`).
 */
describe('the client package, packed and installed in an empty project, on the demo data', () => {
  let work: string;
  let service: RunningService;
  let password: string;
  let apiKey: string;
  let app: string;

  beforeAll(async () => {
    requireBuild();
    work = mkdtempSync(join(tmpdir(), 'staff-auth-client-install-'));
    // A first start: demo data on the embedded database, the password and the key printed once.
    const dataDir = join(work, 'data');
    service = await startService(
      { ...CHILD_TEST_ENV, SEED_DEMO: 'true', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      120_000,
    );
    password = /^\s+password:\s+(\S+)$/m.exec(service.child.stdout)![1];
    apiKey = /^\s+API key:\s+(\S+)$/m.exec(service.child.stdout)![1];
  });

  afterAll(async () => {
    await service?.stop();
    await killChildren();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('packs: `npm pack ./client` builds the package and ships its built files, with no install script', async () => {
    await npm(ROOT, 'pack', './client', '--pack-destination', work);
    const [tarball] = readdirSync(work).filter((name) => name.endsWith('.tgz'));
    expect(tarball).toBe('staff-auth-client-0.1.0.tgz');

    app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'my-app', private: true, type: 'module' }));
    await npm(app, 'install', '--prefer-offline', '--no-audit', '--no-fund', join(work, tarball));
    const installed = join(app, 'node_modules', '@staff-auth', 'client');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(Object.keys(manifest.scripts).filter((name) => /^(pre|post)?install$|^prepare$/.test(name))).toEqual([]);
    for (const file of ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/openapi.d.ts', 'README.md']) {
      expect({ file, there: existsSync(join(installed, file)) }).toEqual({ file, there: true });
    }
    // Its dependency is the project's own, not one it borrowed from this repository's node_modules.
    const { stdout } = await run(
      process.execPath,
      ['-p', "require.resolve('openapi-fetch', { paths: [require.resolve('@staff-auth/client')] })"],
      { cwd: app },
    );
    expect(realpathSync(stdout.trim()).startsWith(realpathSync(app))).toBe(true);
  });

  it("runs the client README's demo from the installed package: it prints what the README shows", async () => {
    const readme = readFileSync(join(ROOT, 'client', 'README.md'), 'utf8');
    writeFileSync(join(app, 'demo.ts'), blockAfter(readme, '<!-- client-demo:'));
    const printed = await node(app, 'demo.ts', { STAFF_AUTH_URL: service.url, DEMO_PASSWORD: password });
    expect(printed).toBe(blockAfter(readme, 'It prints the orders of Demo Company A:'));
  });

  it("runs docs/client.md's readProducts and client/example.ts from the project: the demo products, the first one", async () => {
    const readProducts = readFileSync(join(ROOT, 'client', 'examples', 'read-products.ts'), 'utf8').replace(
      "from '../src'",
      "from '@staff-auth/client'",
    );
    writeFileSync(join(app, 'read-products.ts'), readProducts);
    writeFileSync(
      join(app, 'print-products.ts'),
      "import { readProducts } from './read-products.ts';\n" +
        "const ask = async () => { throw new Error('the demo owner has no TOTP'); };\n" +
        "console.log(JSON.stringify(await readProducts(process.env.STAFF_AUTH_URL!, 'owner@demo.example', " +
        'process.env.DEMO_PASSWORD!, ask)));\n',
    );
    const env = { STAFF_AUTH_URL: service.url, DEMO_PASSWORD: password };
    expect(JSON.parse(await node(app, 'print-products.ts', env))).toEqual([
      'ESP-1KG: Espresso beans, 1 kg, 2490',
      'OAT-1L: Oat milk, 1 l, 289',
      'CUP-100: Paper cups, pack of 100, 799',
      'MUG-01: Ceramic mug, 1250',
      'CB-500: Cold brew concentrate, 500 ml, 1190',
    ]);
    // docs/client.md says what that answer starts with.
    expect(readFileSync(join(ROOT, 'docs', 'client.md'), 'utf8')).toContain(
      "`['ESP-1KG: Espresso beans, 1 kg, 2490', 'OAT-1L: Oat milk, 1 l,\n289', …]`",
    );

    // docs/client.md's openapi-fetch example (page.data!.data[0].id), as client/example.ts runs it.
    writeFileSync(join(app, 'example.ts'), readFileSync(join(ROOT, 'client', 'example.ts'), 'utf8'));
    writeFileSync(
      join(app, 'print-example.ts'),
      "import { loginAndReadAProduct } from './example.ts';\n" +
        "console.log(JSON.stringify(await loginAndReadAProduct(process.env.STAFF_AUTH_URL!, 'owner@demo.example', " +
        'process.env.DEMO_PASSWORD!)));\n',
    );
    expect(JSON.parse(await node(app, 'print-example.ts', env))).toEqual({
      employee: 'owner@demo.example',
      company: 'Demo Company A',
      permissions: ['*'],
      product: { id: 1, name: 'Espresso beans, 1 kg', price: 2490 },
      remaining: expect.stringMatching(/^\d+$/),
    });
  });

  it('type-checks in the project: the declarations it ships describe every operation', async () => {
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          allowImportingTsExtensions: true,
          typeRoots: [join(ROOT, 'node_modules', '@types')],
          types: ['node'],
        },
        include: ['*.ts'],
      }),
    );
    // example.ts names its types by their path in this repository; the package exports the same ones.
    writeFileSync(
      join(app, 'example.ts'),
      readFileSync(join(app, 'example.ts'), 'utf8').replace("from './openapi'", "from '@staff-auth/client'"),
    );
    await run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], { cwd: app });
  });

  it('installs from the built folder with --install-links, with openapi-fetch of its own', async () => {
    const folderApp = join(work, 'folder-app');
    mkdirSync(folderApp);
    writeFileSync(join(folderApp, 'package.json'), JSON.stringify({ name: 'folder-app', private: true }));
    await npm(
      folderApp,
      'install',
      '--install-links',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      join(ROOT, 'client'),
    );
    const { stdout } = await run(
      process.execPath,
      ['-p', "require.resolve('openapi-fetch', { paths: [require.resolve('@staff-auth/client')] })"],
      { cwd: folderApp },
    );
    expect(realpathSync(stdout.trim()).startsWith(realpathSync(folderApp))).toBe(true);
  });

  it('prints an API key that reads the demo products as it is sent', async () => {
    const res = await fetch(`${service.url}/v1/products`, { headers: { authorization: apiKey } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { total: number }).total).toBe(5);
  });
});
