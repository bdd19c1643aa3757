import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CLEAN_EXIT,
  exitStatus,
  killChildren,
  logRecords,
  requireBuild,
  runCli,
  type RunningService,
  SERVICE_ENTRY,
  serviceStarted,
  spawnCommand,
  spawnNode,
  startService,
} from './support/processes';

// Real processes, and the first start initialises a PGlite folder (initdb), which takes seconds.
jest.setTimeout(60_000);

const BANNER = 'Demo data created';
const IN_USE = /embedded database in .+ is in use by process \d+/;

async function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string; body: string }> {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(5000) });
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
}

function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

describe('the compiled service on its embedded default (npm start)', () => {
  let dataDir: string;
  let emptyDir: string;
  let env: Record<string, string>;
  let service: RunningService;

  beforeAll(() => {
    requireBuild();
    dataDir = mkdtempSync(join(tmpdir(), 'staff-auth-start-'));
    emptyDir = mkdtempSync(join(tmpdir(), 'staff-auth-badconfig-'));
    // As a developer's first `npm start`: no DATABASE_URL, no JWT_SECRET, no SEED_DEMO; only hashing made cheap.
    env = {
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_TIME_COST: '1',
    };
  });

  afterAll(async () => {
    await killChildren();
    for (const dir of [dataDir, emptyDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('first start', () => {
    it('creates the demo data and prints the owner credentials once, outside the JSON log', async () => {
      // initdb of a new folder: well over 30 s on a machine shared by several suites.
      service = await startService(env, 100_000);
      const { stdout } = service.child;
      expect(occurrences(stdout, BANNER)).toBe(1);
      expect(stdout).toMatch(/e-mail:\s+owner@demo\.example\n/);
      const password = /password:\s+(\S+)\n/.exec(stdout)?.[1];
      expect(password).toMatch(/^\S{12,}$/);
      expect(JSON.stringify(logRecords(stdout))).not.toContain(password);
      // A read-only API key of the owner's, under the same rule: shown here once, never in a log record.
      const apiKey = /API key:\s+(\S+)\n/.exec(stdout)?.[1];
      expect(apiKey).toMatch(/^ak_[\w-]+:[\w-]{40,}$/);
      expect(JSON.stringify(logRecords(stdout))).not.toContain(apiKey!.split(':')[1]);
      const products = await get(`${service.url}/v1/products`, { authorization: apiKey! });
      expect({ status: products.status, total: JSON.parse(products.body).total }).toEqual({ status: 200, total: 5 });
      expect(logRecords(stdout).find((record) => record.msg === 'listening')).toMatchObject({
        database: 'embedded',
        url: service.url,
        admin: `${service.url}/admin`,
        docs: `${service.url}/docs`,
      });
      // How to get in again once this screen is gone.
      expect(stdout).toContain('npm run cli -- employee:set-password --email owner@demo.example');
    }, 120_000);

    it('prints the demo password within the first screenful: no per-module or per-route lines at info', () => {
      const lines = service.child.stdout.split('\n');
      const passwordLine = lines.findIndex((line) => /^\s+password:/.test(line));
      expect(passwordLine).toBeGreaterThan(0);
      expect(passwordLine).toBeLessThan(15);
      const contexts = logRecords(service.child.stdout).map((record) => record.context);
      for (const noisy of ['InstanceLoader', 'RoutesResolver', 'RouterExplorer']) expect(contexts).not.toContain(noisy);
      // The migrations a first start applies are one line with their count, not a list of class names.
      const migrations = logRecords(service.child.stdout).filter((record) => record.context === 'Database');
      expect(migrations.map((record) => record.msg)).toEqual([
        expect.stringMatching(/^Applied \d+ migration\(s\), the latest \w+\d{13}$/),
      ]);
      expect(String(migrations[0].msg).length).toBeLessThan(120);
    });

    it('is healthy and serves the API documentation', async () => {
      const health = await get(`${service.url}/health`);
      expect(health.status).toBe(200);
      expect(JSON.parse(health.body)).toMatchObject({ status: 'ok' });

      const docs = await get(`${service.url}/docs`);
      expect(docs.status).toBe(200);
      expect(docs.type).toMatch(/^text\/html/);

      const openapi = await get(`${service.url}/docs/openapi.json`);
      expect(openapi.status).toBe(200);
      expect(JSON.parse(openapi.body)).toEqual(expect.objectContaining({ openapi: expect.any(String) }));
    });

    it('refuses a second service on the same DATA_DIR with one line saying the database is in use', async () => {
      const second = await spawnNode(SERVICE_ENTRY, [], env).exit(20_000);
      expect(second.code).not.toBe(0);
      expect(second.code).not.toBeNull();
      expect(second.stderr.split('\n').filter(Boolean)).toEqual([expect.stringMatching(IN_USE)]);
      // Only that sentence: no JSON stack trace ("Unable to connect… Retrying (1)") before it.
      expect(second.stdout).toBe('');
    });

    it('hands the CLI’s command to the running service, so the failed second service did not take it away', async () => {
      const cli = await runCli(['company:create', '--name', 'Via The Service'], env);
      expect({ code: cli.code, stderr: cli.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(cli.stdout.trim().split('\n').pop()!)).toEqual({
        id: expect.any(Number),
        name: 'Via The Service',
      });
      expect((await get(`${service.url}/health`)).status).toBe(200);
    });

    it('exits with code 0 within a few seconds of SIGTERM', async () => {
      const exited = await service.stop('SIGTERM', 5000);
      expect({ code: exited.code, signal: exited.signal }).toEqual({ code: 0, signal: null });
      expect(logRecords(exited.stdout).map((record) => record.msg)).toContain('stopped');
    });
  });

  describe('second start on the same DATA_DIR', () => {
    it('keeps the data: no demo banner, still healthy, and stops cleanly', async () => {
      service = await startService(env);
      expect(service.child.stdout).not.toContain(BANNER);
      const health = await get(`${service.url}/health`);
      expect(health.status).toBe(200);
      expect(JSON.parse(health.body)).toMatchObject({ status: 'ok' });
      const exited = await service.stop('SIGTERM', 5000);
      expect(exited.code).toBe(0);
    });

    it('lets the CLI reach the owner from the first start once the service is stopped', async () => {
      const cli = await runCli(
        ['membership:add', '--email', 'owner@demo.example', '--company', '1', '--permissions', 'users:read'],
        env,
      );
      expect({ code: cli.code, stderr: cli.stderr }).toEqual({ code: 0, stderr: '' });
      const result = JSON.parse(cli.stdout.trim().split('\n').pop()!);
      expect(result).toEqual({ employee_id: expect.any(Number), company_id: 1, permissions: ['users:read'] });
    });

    it('takes over the lock left by a process that was killed', async () => {
      const killed = await startService(env);
      expect((await killed.stop('SIGKILL', 5000)).signal).toBe('SIGKILL');

      service = await startService(env);
      expect((await get(`${service.url}/health`)).status).toBe(200);
      expect(service.child.stdout).not.toContain(BANNER);
      expect(exitStatus(await service.stop('SIGTERM', 5000))).toEqual(CLEAN_EXIT);
    });

    it("takes over a lock naming its own pid (a restarted container often gets the dead process's pid)", async () => {
      // The shell writes its pid into the lock file, then exec keeps that pid for the service.
      const child = spawnCommand(
        '/bin/sh',
        ['-c', 'printf %s "$$" > "$DATA_DIR/.embedded-db.lock" && exec "$0" "$1"', process.execPath, SERVICE_ENTRY],
        env,
      );
      service = await serviceStarted(child);
      expect((await get(`${service.url}/health`)).status).toBe(200);
      expect(exitStatus(await service.stop('SIGTERM', 5000))).toEqual(CLEAN_EXIT);
    });
  });

  describe('a first start whose port is taken', () => {
    let portDir: string;
    let holder: Server;
    afterAll(async () => {
      if (holder?.listening) await new Promise((done) => holder.close(done));
      if (portDir) rmSync(portDir, { recursive: true, force: true });
    });

    it('fails with one line naming the port and creates no demo data; the next start creates it', async () => {
      portDir = mkdtempSync(join(tmpdir(), 'staff-auth-port-'));
      holder = createServer();
      await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
      const port = (holder.address() as AddressInfo).port;
      const portEnv = { ...env, DATA_DIR: portDir, PORT: String(port) };

      const failed = await spawnNode(SERVICE_ENTRY, [], portEnv).exit(30_000);
      expect(failed.code).toBe(1);
      expect(failed.stderr.split('\n').filter(Boolean)).toEqual([
        `Start failed: port ${port} on 127.0.0.1 is already in use; stop what holds it or set PORT`,
      ]);
      // No password was shown (it would scroll away above the error) and no account was made with it.
      expect(failed.stdout).not.toContain(BANNER);
      expect(failed.stdout).not.toContain('password');

      await new Promise((done) => holder.close(done));
      const started = await startService(portEnv);
      expect(occurrences(started.child.stdout, BANNER)).toBe(1);
      expect(exitStatus(await started.stop('SIGTERM', 15_000))).toEqual(CLEAN_EXIT);
    }, 90_000);
  });

  describe('NODE_ENV=production on an empty embedded database', () => {
    let prodDir: string;
    afterAll(() => prodDir && rmSync(prodDir, { recursive: true, force: true }));

    it('creates no demo data unless SEED_DEMO=true', async () => {
      prodDir = mkdtempSync(join(tmpdir(), 'staff-auth-prod-'));
      const prodEnv = { ...env, DATA_DIR: prodDir, NODE_ENV: 'production', JWT_SECRET: 'p'.repeat(40) };
      const production = await startService(prodEnv);
      expect(production.child.stdout).not.toContain(BANNER);
      // A stop right after a first start also flushes the new database; on a busy CI machine that can pass 5 s.
      // Stopping quickly is the business of the SIGTERM test above; this one is about the demo data.
      expect(exitStatus(await production.stop('SIGTERM', 15_000))).toEqual(CLEAN_EXIT);
      const owner = await runCli(['membership:remove', '--email', 'owner@demo.example', '--company', '1'], prodEnv);
      expect(owner.stderr).toMatch(/no employee has the e-mail owner@demo\.example/);

      const seeded = await startService({ ...prodEnv, SEED_DEMO: 'true' });
      expect(occurrences(seeded.child.stdout, BANNER)).toBe(1);
      expect(exitStatus(await seeded.stop('SIGTERM', 15_000))).toEqual(CLEAN_EXIT);
    }, 150_000);
  });

  describe('a bad setting stops the start with exit code 1 and one line naming the key', () => {
    it.each([
      ['PORT', { PORT: 'abc' }],
      ['JWT_SECRET', { NODE_ENV: 'production' }],
      ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
    ])('%s', async (key, bad) => {
      const exited = await spawnNode(SERVICE_ENTRY, [], { ...env, DATA_DIR: emptyDir, ...bad }).exit(10_000);
      expect(exited.code).toBe(1);
      expect(exited.stderr.split('\n').filter(Boolean)).toEqual([expect.stringContaining(key)]);
      // Nothing started: no log line, and the database was never opened.
      expect(exited.stdout).toBe('');
      expect(readdirSync(emptyDir)).toEqual([]);
    });
  });
});
