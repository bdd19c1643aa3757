import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectError } from './support/expectations';
import { libfaketime } from './support/faketime';
import {
  CHILD_TEST_ENV,
  killChildren,
  requireBuild,
  runCli,
  type RunningService,
  startService,
} from './support/processes';

const PASSWORD = 'session days test password';
const EMAIL = 'owner@session-days.example';
const SECOND = 1000;
const DAY = 86_400 * SECOND;
const VIETNAM = 7 * 3600 * SECOND;

/** The JWT's `iat` and `exp` claims, in ms. */
const claims = (jwt: string) => {
  const { iat, exp } = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()) as Record<string, number>;
  return { iat: iat * SECOND, exp: exp * SECOND };
};

/**
 * docs/contract.md, "Company policies and roles": `session_days` 1 ends a token at 23:59:59 Vietnam time (UTC+7)
 * on the day after the Vietnam day of its login, whatever the server's own time zone. A built instance runs in
 * Los Angeles time (TZ=America/Los_Angeles: on either side of Vietnam's midnight, 17:00 UTC, it is still the
 * same day there) on the embedded database, its wall clock moved by libfaketime through a file the test rewrites
 * (`FAKETIME_TIMESTAMP_FILE`, read at every call; the monotonic clock, which timers use, stays real).
 */
describe('session_days 1 on a server in Los Angeles: logins just before and just after midnight in Vietnam', () => {
  let dataDir: string;
  let service: RunningService;
  let timeFile: string;
  /** The Vietnam midnight the test steps over (in UTC ms): at least an hour from now, in the future. */
  let midnight: number;
  let companyId: number;
  /** Moves the service's wall clock to `at` (ms since the epoch), to the second: an offset from the real one. */
  const setServiceTime = (at: number) => {
    const offset = Math.round((at - Date.now()) / SECOND);
    writeFileSync(timeFile, `${offset >= 0 ? '+' : ''}${offset}s\n`);
  };

  beforeAll(async () => {
    requireBuild();
    const preload = libfaketime();
    dataDir = mkdtempSync(join(tmpdir(), 'staff-auth-session-days-'));
    timeFile = join(dataDir, 'faketime');
    midnight = Math.ceil((Date.now() + VIETNAM + 3600 * SECOND) / DAY) * DAY - VIETNAM;
    setServiceTime(midnight - 15 * SECOND);
    const env = { ...CHILD_TEST_ENV, DATA_DIR: dataDir, JWT_SECRET: 'session-days-test-secret-of-32-bytes-or-more' };
    const cli = async (...args: string[]) => {
      const exited = await runCli(args, env, 40_000, `${PASSWORD}\n`);
      if (exited.code !== 0) throw new Error(`cli ${args.join(' ')}: ${exited.stderr}`);
      return JSON.parse(exited.stdout) as { id: number };
    };
    companyId = (await cli('company:create', '--name', 'Session Days Co')).id;
    await cli('employee:create', '--email', EMAIL, '--password', '-', '--name', 'Owner');
    await cli('membership:add', '--email', EMAIL, '--company', String(companyId), '--permissions', '*');
    service = await startService({
      ...env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info', // its "listening" line tells startService the URL
      TZ: 'America/Los_Angeles',
      LD_PRELOAD: preload,
      FAKETIME_TIMESTAMP_FILE: timeFile,
      FAKETIME_NO_CACHE: '1',
      DONT_FAKE_MONOTONIC: '1',
    });
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await killChildren();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async (method: string, path: string, body?: object, authorization?: string) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (authorization) headers.authorization = authorization;
    const response = await fetch(`${service.url}${path}`, { method, headers, body: body && JSON.stringify(body) });
    return { status: response.status, body: await response.json() };
  };
  const login = async () => {
    const answer = await call('POST', '/v1/users/authenticatefinish', {
      email: EMAIL,
      password: PASSWORD,
      company_id: companyId,
    });
    expect(answer.status).toBe(200);
    const body = answer.body as { jwt: string; expires_at: string };
    return { ...body, ...claims(body.jwt) };
  };

  it('ends each login’s token at 23:59:59 Vietnam time of the next Vietnam day, and not a second later', async () => {
    // 23:59:45 in Vietnam (16:59:45 UTC, 08:59:45 or 09:59:45 in Los Angeles): a fresh login proves the person.
    setServiceTime(midnight - 15 * SECOND); // again: its clock ran on while it started
    const owner = await login();
    // The token's issue time says the service's clock is where the test put it (not the Date header: Node caches
    // it for up to a second).
    expect(Math.abs(owner.iat - (midnight - 15 * SECOND))).toBeLessThanOrEqual(3 * SECOND);
    const policy = { mfa_required: false, session_days: 1, idle_timeout_minutes: null, ip_allowlist: [] };
    const saved = await call('PUT', '/v1/company/policy', policy, owner.jwt);
    expect({ status: saved.status, body: saved.body }).toEqual({ status: 200, body: policy });

    const before = await login();
    const endOfNextDay = midnight + DAY - SECOND; // 23:59:59 in Vietnam, the day after the login's
    expect(before.iat).toBeLessThan(midnight);
    expect(before.exp).toBe(endOfNextDay);
    expect(Date.parse(before.expires_at)).toBe(endOfNextDay);
    expect(before.expires_at).toMatch(/T23:59:59\+07:00$/);

    setServiceTime(midnight + 15 * SECOND); // 00:00:15 the next day in Vietnam; the same day in Los Angeles
    const after = await login();
    expect(Math.abs(after.iat - (midnight + 15 * SECOND))).toBeLessThanOrEqual(3 * SECOND);
    expect(after.iat).toBeGreaterThanOrEqual(midnight);
    expect(after.exp).toBe(endOfNextDay + DAY);
    expect(Date.parse(after.expires_at)).toBe(endOfNextDay + DAY);
    expect(after.expires_at).toMatch(/T23:59:59\+07:00$/);

    // A few seconds before the first bound both tokens work; a few seconds after it, only the later login's.
    setServiceTime(endOfNextDay - 5 * SECOND);
    expect((await call('GET', '/v1/users/me', undefined, before.jwt)).status).toBe(200);
    setServiceTime(endOfNextDay + 5 * SECOND);
    expectError(await call('GET', '/v1/users/me', undefined, before.jwt), 400, 'error_jwt_expired');
    expect((await call('GET', '/v1/users/me', undefined, after.jwt)).status).toBe(200);
  });
});
