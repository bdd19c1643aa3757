import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { withAdminClient } from './support/databases';
import { call, createFleetAccount, type Session } from './support/fleet';
import { requireBuild } from './support/processes';

const ROOT = join(__dirname, '..');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface FleetInfo {
  api: string;
  database_direct_url: string;
  redis_url: string;
  pids: Record<string, number>;
}

/**
 * `npm run fleet` (deploy/fleet.js) as a user runs it: started, one login and /v1/users/me through HAProxy, then
 * SIGINT, after which every process it started is gone. Once per Redis variant, on ports and a database of its own.
 */
describe.each(['sentinel', 'cluster'])('the reference fleet (deploy/fleet.js --redis %s)', (form) => {
  const database = `staff_auth_fleet_test_${randomBytes(4).toString('hex')}`;

  beforeAll(() => requireBuild());
  afterAll(async () => {
    await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
  });

  it('serves a login through HAProxy and stops everything it started on SIGINT', async () => {
    // Below Linux's ephemeral range (32768-60999): an outgoing connection of a parallel test never holds one.
    const base = 20000 + Math.floor(Math.random() * 12000);
    const child = spawn(process.execPath, [join(ROOT, 'deploy', 'fleet.js'), '--redis', form], {
      cwd: ROOT,
      env: { ...process.env, FLEET_PORT_BASE: String(base), FLEET_DATABASE: database },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 90_000;
      while (!out.includes('fleet ready') && Date.now() < deadline && child.exitCode === null) await sleep(200);
      expect(out).toContain('fleet ready');
      const info = JSON.parse(out.split('\n').find((line) => line.startsWith('{"api"'))!) as FleetInfo;
      expect(info.redis_url.startsWith(`redis+${form}://`)).toBe(true);

      const account = await createFleetAccount(info.database_direct_url);
      const login = await call(info.api, 'POST', '/v1/users/authenticatefinish', {
        body: { email: account.email, password: account.password, company_id: account.companies[0] },
      });
      expect(login.status).toBe(200);
      const me = await call(info.api, 'GET', '/v1/users/me', { credential: (login.body as Session).jwt });
      expect(me.status).toBe(200);

      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(out).toContain('fleet stopped');
      const pids = Object.values(info.pids);
      expect(pids.length).toBe(form === 'cluster' ? 11 : 10);
      expect(pids.filter(alive)).toEqual([]);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 150_000);
});
