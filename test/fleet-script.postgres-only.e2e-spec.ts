import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { withAdminClient } from './support/databases';
import { call, createFleetAccount, type FleetAccount, type Session } from './support/fleet';
import { accepting, alive, descendants, NPM } from './support/process-tree';
import { CHILD_TEST_ENV, requireBuild, runCli } from './support/processes';

const ROOT = join(__dirname, '..');

interface FleetInfo {
  api: string;
  instances: string[];
  database_direct_url: string;
  redis_url: string;
  pids: Record<string, number>;
}

/**
 * `npm run fleet` (deploy/fleet.js) as a user or a supervisor runs it: started through npm, one login and
 * /v1/users/me through HAProxy, the printed `export` lines pointing the operator CLI at it, then a signal sent to
 * npm's PID (SIGINT with Sentinel, SIGTERM with Cluster), after which every process it started is gone and its
 * ports are free. Once per Redis variant, on ports and a database of its own; the Sentinel run with --seed-demo
 * logs in as the demo owner whose password the script printed.
 */
/** `npm run fleet -- --help`: where a user finds the ports and the database, without starting anything. */
describe('npm run fleet -- --help', () => {
  it('names the options, the port layout from FLEET_PORT_BASE and the database FLEET_DATABASE', async () => {
    const { stdout } = await promisify(execFile)(NPM, ['run', '-s', 'fleet', '--', '--help'], { cwd: ROOT });
    expect(stdout).toMatch(
      /^usage: npm run fleet \[-- --redis sentinel\|cluster\] \[--seed-demo\] \[--keep-database\]/,
    );
    expect(stdout).toMatch(
      /FLEET_PORT_BASE\s+first port \(default 18000\): HAProxy base, instances base\+1\.\.base\+3/,
    );
    expect(stdout).toMatch(
      /FLEET_DATABASE\s+the database on it \(default staff_auth_fleet\): created when missing and dropped/,
    );
    expect(stdout).toContain('FLEET_POSTGRES_URL');
  });
});

const databaseExists = (name: string) =>
  withAdminClient(async (client) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return found.rowCount === 1;
  });

describe.each([
  ['sentinel', 'SIGINT', true],
  ['cluster', 'SIGTERM', false],
] as const)('the reference fleet (npm run fleet -- --redis %s), stopped with %s', (form, signal, seedDemo) => {
  const database = `staff_auth_fleet_test_${randomBytes(4).toString('hex')}`;

  beforeAll(() => requireBuild());
  afterAll(async () => {
    await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
  });

  it(`serves a login through HAProxy, prints the CLI's exports, and stops everything on ${signal}`, async () => {
    // Below Linux's ephemeral range (32768-60999): an outgoing connection of a parallel test never holds one.
    const base = 20000 + Math.floor(Math.random() * 12000);
    // The Sentinel run drops its database at stop (the default); the Cluster run keeps it (--keep-database).
    const flags = seedDemo ? ['--seed-demo'] : ['--keep-database'];
    const child = spawn(NPM, ['run', 'fleet', '--', '--redis', form, ...flags], {
      cwd: ROOT,
      env: { ...process.env, FLEET_PORT_BASE: String(base), FLEET_DATABASE: database },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let tree: number[] = [];
    try {
      const deadline = Date.now() + 90_000;
      while (!out.includes('fleet ready') && Date.now() < deadline && child.exitCode === null) await sleep(200);
      expect(out).toContain('fleet ready');
      tree = descendants(child.pid!);
      const info = JSON.parse(out.split('\n').find((line) => line.startsWith('{"api"'))!) as FleetInfo;
      expect(info.redis_url.startsWith(`redis+${form}://`)).toBe(true);

      expect(await databaseExists(database)).toBe(true);
      const account = seedDemo ? demoOwner(out) : await createFleetAccount(info.database_direct_url);
      if (seedDemo) {
        // The demo's read-only API key, printed with the password, reads its company's products.
        const apiKey = /-H 'authorization: (ak_\S+:\S+)'/.exec(out)![1];
        const products = await call(info.api, 'GET', '/v1/products', { credential: apiKey });
        expect({ status: products.status, total: (products.body as { total: number }).total }).toEqual({
          status: 200,
          total: 5,
        });
      }
      const login = await call(info.api, 'POST', '/v1/users/authenticatefinish', {
        body: { email: account.email, password: account.password, company_id: account.companies[0] },
      });
      expect(login.status).toBe(200);
      const me = await call(info.api, 'GET', '/v1/users/me', { credential: (login.body as Session).jwt });
      expect(me.status).toBe(200);
      // Every instance signs with the one key: each publishes it and takes a token another issued.
      const [header] = (login.body as Session).jwt.split('.');
      const { alg, kid } = JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg: string; kid: string };
      expect(alg).toBe('EdDSA');
      // The three instances of FLEET_PORT_BASE + 1..3, so that the loop below checks each of them (an empty list
      // would pass it).
      expect(info.instances).toEqual([1, 2, 3].map((offset) => `http://127.0.0.1:${base + offset}`));
      for (const instance of info.instances) {
        const jwks = await call(instance, 'GET', '/.well-known/jwks.json');
        expect((jwks.body as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid)).toEqual([kid]);
        const there = await call(instance, 'GET', '/v1/users/me', { credential: (login.body as Session).jwt });
        expect(there.status).toBe(200);
      }

      // The printed exports, as pasted into a shell: the CLI reaches the fleet's database.
      const exports = Object.fromEntries(
        [...out.matchAll(/^export (\w+)='([^']*)'$/gm)].map(([, key, value]) => [key, value]),
      );
      expect(Object.keys(exports).sort()).toEqual(
        [
          'DATABASE_DIRECT_URL',
          'DATABASE_URL',
          'JWT_PRIVATE_KEY_FILE',
          'JWT_SECRET',
          'REDIS_KEY_PREFIX',
          'REDIS_URL',
        ].sort(),
      );
      const listed = await runCli(['company:list'], { ...CHILD_TEST_ENV, ...exports });
      expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: '' });
      const companies = JSON.parse(listed.stdout.trim().split('\n').pop()!) as Array<{ id: number }>;
      expect(companies.map((company) => company.id)).toEqual(expect.arrayContaining(account.companies));

      child.kill(signal);
      expect(await exited).toBe(0);
      expect(out).toContain('fleet stopped');
      expect(out).toContain(`database ${database} ${seedDemo ? 'dropped' : 'kept'}`);
      expect(await databaseExists(database)).toBe(!seedDemo);
      const pids = Object.values(info.pids);
      expect(pids.length).toBe(form === 'cluster' ? 11 : 10);
      // The process tree taken at start holds every process the fleet named, so "none alive" below covers them all.
      expect(tree).toEqual(expect.arrayContaining(pids));
      expect([...pids, ...tree].filter(alive)).toEqual([]);
      const ports = [info.api, ...info.instances].map((url) => Number(new URL(url).port));
      expect(await Promise.all(ports.map(accepting))).toEqual(ports.map(() => false));
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      for (const pid of tree) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 150_000);
});

/** The demo owner whose password `--seed-demo` printed; both demo companies are the first two of a new database. */
function demoOwner(out: string): FleetAccount {
  const password = /log in as owner@demo\.example with the password (\S+) /.exec(out)?.[1];
  expect(password).toBeDefined();
  return { email: 'owner@demo.example', password: password!, companies: [1, 2] };
}
