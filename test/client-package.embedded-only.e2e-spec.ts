import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createStaffAuthClient } from '../client/src';
import { readProducts } from '../client/examples/read-products';
import {
  CHILD_TEST_ENV,
  killChildren,
  requireBuild,
  runCli,
  type RunningService,
  startService,
} from './support/processes';

// A built instance with the real limits, and two runs of 300 requests that the bucket spreads over 27 seconds.
jest.setTimeout(90_000);

const ROOT = join(__dirname, '..');
const PASSWORD = 'client package test password';
/** The GET bucket of the source's §8: 30 at once, then one every 100 ms; 300 requests need 27 s at best. */
const IDEAL_MS = (300 - 30) * 100;

/** Runs `total` calls with `concurrency` callers at a time; how long it took. */
async function pool<T>(total: number, concurrency: number, call: () => Promise<T>) {
  const results: T[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (results.length < total) {
        const index = results.push(undefined as T) - 1;
        results[index] = await call();
      }
    }),
  );
  return { results, ms: Math.round(performance.now() - started) };
}

describe('the client package against a built instance with the real limits (RATE_LIMIT_SCALE=1)', () => {
  let dataDir: string;
  let service: RunningService;
  // One employee; each login is a session of its own, so each run has buckets of its own (the token hash).
  const EMAIL = 'reader@example.test';
  /** What readProducts answers for each: the company's 40 products (one GET bucket and then some). */
  let teaLines: string[];

  beforeAll(async () => {
    requireBuild();
    dataDir = mkdtempSync(join(tmpdir(), 'staff-auth-client-'));
    const env = { ...CHILD_TEST_ENV, DATA_DIR: dataDir, JWT_SECRET: 'client-package-test-secret-of-32-bytes-or-more' };
    const cli = async (...args: string[]) => {
      const exited = await runCli(args, env, 40_000, `${PASSWORD}\n`);
      if (exited.code !== 0) throw new Error(`cli ${args.join(' ')}: ${exited.stderr}`);
      return JSON.parse(exited.stdout) as { id: number };
    };
    const company = await cli('company:create', '--name', 'Client Co');
    await cli('employee:create', '--email', EMAIL, '--password', '-', '--name', 'Client Tester');
    await cli('membership:add', '--email', EMAIL, '--company', String(company.id), '--permissions', '*');
    service = await startService({ ...env, PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_SCALE: '1', LOG_LEVEL: 'info' });
    const client = createStaffAuthClient({ baseUrl: service.url });
    await client.login({ email: EMAIL, password: PASSWORD });
    const teas = Array.from({ length: 40 }, (_, i) => ({ name: `Tea ${i + 1}`, sku: `TEA-${i + 1}`, price: 1250 + i }));
    // All at once too: the client paces them to the POST bucket.
    await Promise.all(teas.map((body) => client.api.POST('/v1/products', { body })));
    teaLines = teas.map((tea) => `${tea.sku}: ${tea.name}, ${tea.price}`).sort();
    await client.logout();
  });

  afterAll(async () => {
    await service?.stop();
    await killChildren();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs the example of docs/client.md: the 40 products read at once, none refused to the caller', async () => {
    const doc = readFileSync(join(ROOT, 'docs', 'client.md'), 'utf8');
    const section = doc.split('# Calling the API from TypeScript')[1].split('\n## ')[0];
    const shown = /```ts\n([\s\S]*?)```/.exec(section)![1];
    const example = readFileSync(join(ROOT, 'client/examples/read-products.ts'), 'utf8')
      .replace("from '../src'", "from '@staff-auth/client'")
      .replace(/\/\*\*[\s\S]*?\*\/\n/, '');
    expect(shown).toBe(example);

    const answers = await readProducts(service.url, EMAIL, PASSWORD, async () => 'never asked');
    expect([...answers].sort()).toEqual(teaLines);
  });

  it('300 GETs on one group at concurrency 100: all succeed, a handful refused at most, within 1.2× the bucket', async () => {
    const client = createStaffAuthClient({ baseUrl: service.url });
    await client.login({ email: EMAIL, password: PASSWORD });
    const sentBefore = client.stats.sent;
    const run = await pool(300, 100, () => client.api.GET('/v1/products', { params: { query: { per_page: 1 } } }));

    const statuses = run.results.map(({ response }) => response.status);
    console.log(
      `client: 300 GETs at concurrency 100 in ${run.ms} ms (ideal ${IDEAL_MS} ms, ratio ${(run.ms / IDEAL_MS).toFixed(3)}), ` +
        `${client.stats.rateLimited} refused by the server, ${client.stats.sent - sentBefore} sent`,
    );
    expect(statuses).toEqual(Array(300).fill(200));
    expect(client.stats.rateLimited).toBeLessThanOrEqual(5);
    expect(run.ms).toBeLessThanOrEqual(IDEAL_MS * 1.2);
    await client.logout();
  });

  it('for comparison, the same run without the client: the caller sees most of them refused', async () => {
    const client = createStaffAuthClient({ baseUrl: service.url });
    const { jwt } = await client.login({ email: EMAIL, password: PASSWORD });
    const run = await pool(300, 100, () =>
      fetch(`${service.url}/v1/products?per_page=1`, { headers: { authorization: jwt } }).then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      }),
    );
    const refused = run.results.filter((status) => status === 429).length;
    console.log(`without the client: 300 GETs at concurrency 100 in ${run.ms} ms, ${refused} answered 429`);
    // The burst and whatever drained while it ran; every other one is the caller's problem.
    expect(run.results.filter((status) => status === 200).length).toBeLessThan(30 + run.ms / 100 + 2);
    expect(refused).toBeGreaterThan(200);
  });
});
