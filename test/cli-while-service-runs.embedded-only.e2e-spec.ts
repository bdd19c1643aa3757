import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { operatorSocketPath } from '../src/operations/cli/operator-socket';
import {
  CHILD_TEST_ENV,
  killChildren,
  requireBuild,
  runCli,
  type RunningService,
  startService,
} from './support/processes';

jest.setTimeout(120_000);

const PASSWORD = 'Socket-Operator-4417';

/**
 * docs/contract.md: on the embedded default the CLI works while the service runs. The service owns the data folder
 * and runs the CLI's commands for it over a Unix socket only its user can open; the service keeps serving, and
 * a change takes effect there at once.
 */
describe('the CLI while the embedded service runs', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let service: RunningService;

  const cli = async (args: string[], input = '') => {
    const result = await runCli(args, env, 40_000, input);
    expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' });
    return JSON.parse(result.stdout.trim().split('\n').pop()!);
  };
  const post = (path: string, body: object, authorization?: string) =>
    fetch(`${service.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
      body: JSON.stringify(body),
    });
  const get = (path: string, authorization: string) => fetch(`${service.url}${path}`, { headers: { authorization } });

  beforeAll(async () => {
    requireBuild();
    dataDir = mkdtempSync(join(tmpdir(), 'staff-auth-cli-socket-'));
    env = { ...CHILD_TEST_ENV, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' };
    service = await startService(env);
  });
  afterAll(async () => {
    await killChildren();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the CLI on a socket only its user can open', () => {
    const socket = statSync(operatorSocketPath(dataDir));
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'operator')).mode & 0o777).toBe(0o700);
  });

  it('creates, lists and removes through the running service, which sees every change at once', async () => {
    const company = await cli(['company:create', '--name', 'Socket Co']);
    const employee = await cli(['employee:create', '--email', 'sock@example.test', '--password', '-'], `${PASSWORD}\n`);
    await cli([
      'membership:add',
      '--email',
      'sock@example.test',
      '--company',
      String(company.id),
      '--permissions',
      'users:read',
    ]);
    expect(await cli(['company:list'])).toContainEqual({ id: company.id, name: 'Socket Co' });
    expect(await cli(['employee:list', '--company', String(company.id)])).toEqual([
      { id: employee.id, email: 'sock@example.test', name: 'sock', permissions: ['users:read'], mfa: false },
    ]);

    const login = await post('/v1/users/authenticatefinish', {
      email: 'sock@example.test',
      password: PASSWORD,
      company_id: company.id,
    });
    expect(login.status).toBe(200);
    const { jwt, session_id: sessionId } = (await login.json()) as { jwt: string; session_id: string };
    expect((await get('/v1/users', jwt)).status).toBe(200);
    const sessions = await cli(['session:list', '--email', 'sock@example.test']);
    expect(sessions).toEqual([expect.objectContaining({ id: sessionId, company_id: company.id })]);

    // A second owner, so that the last-`*` rule is not what refuses below.
    await cli(['employee:create', '--email', 'boss@example.test', '--password', '-'], `${PASSWORD}\n`);
    await cli([
      'membership:add',
      '--email',
      'boss@example.test',
      '--company',
      String(company.id),
      '--permissions',
      '*',
    ]);
    await cli(['membership:remove', '--email', 'sock@example.test', '--company', String(company.id)]);
    expect((await get('/v1/users', jwt)).status).toBe(400);
    expect(await cli(['session:list', '--email', 'sock@example.test'])).toEqual([]);
  });

  it('answers bad input as the CLI does: one line, exit 2, and the service keeps serving', async () => {
    const [company] = await cli(['company:list']);
    // boss@ is Socket Co's only `*` holder.
    const refused = await runCli(
      ['membership:remove', '--email', 'boss@example.test', '--company', String(company.id)],
      env,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split('\n')).toEqual([expect.stringMatching(/last one/)]);
    const unknown = await runCli(['session:list', '--email', 'nobody@example.test'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toEqual([expect.stringMatching(/nobody@example\.test/)]);
    const weak = await runCli(
      ['employee:create', '--email', 'weak@example.test', '--password', '-'],
      env,
      40_000,
      'password1\n',
    );
    expect(weak.code).toBe(2);
    expect(weak.stderr.trim().split('\n')).toEqual([expect.stringMatching(/too common/)]);
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
  });

  it('sets and removes a rate-limit override through the service, which applies it at once', async () => {
    const [company] = await cli(['company:list']);
    const login = await post('/v1/users/authenticatefinish', {
      email: 'boss@example.test',
      password: PASSWORD,
      company_id: company.id,
    });
    const { jwt } = (await login.json()) as { jwt: string };
    const limitOf = async () => (await get('/v1/users', jwt)).headers.get('x-rate-limit-limit');
    const table = await limitOf();
    const set = ['ratelimit:set', '--company', String(company.id), '--method', 'GET', '--group', 'users'];
    const override = await cli([...set, '--limit', '7']);
    expect(await limitOf()).toBe('7');
    const unknown = await runCli(['ratelimit:set', '--company', '999999', ...set.slice(3), '--limit', '7'], env);
    expect({ code: unknown.code, stderr: unknown.stderr.trim() }).toEqual({
      code: 2,
      stderr: expect.stringMatching(/^error: no company has the id 999999$/),
    });
    await cli(['ratelimit:unset', '--id', String(override.id)]);
    expect(await limitOf()).toBe(table);
  });

  it('after the service stops, the CLI opens the database itself again', async () => {
    const stopped = await service.stop('SIGTERM', 10_000);
    expect(stopped.code).toBe(0);
    const companies = await cli(['company:list']);
    expect(companies.map((company: { name: string }) => company.name)).toContain('Socket Co');
  });
});
