import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import * as argon2 from 'argon2';
import { Client } from 'pg';
import { CHILD_TEST_ENV, logRecords, type RunningService, startService } from './processes';
import { TEST_SIGNING_KEY } from './signing-keys';

export { sleep };

/** What the fault tests read from an answer. */
export interface Answer {
  status: number;
  body: unknown;
  headers: Headers;
  ms: number;
}

/** One HTTP call to a running instance; a network failure is an answer of status 0, never a thrown error. */
export async function call(
  url: string,
  method: string,
  path: string,
  options: { credential?: string; ip?: string; body?: unknown; timeoutMs?: number } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.credential) headers.authorization = options.credential;
  // The instances trust 127.0.0.1 as a proxy, so this picks the client IP of the rate-limit counter.
  if (options.ip) headers['x-forwarded-for'] = options.ip;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const started = performance.now();
  try {
    const res = await fetch(`${url}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON (an empty 204): keep the text.
    }
    return { status: res.status, body, headers: res.headers, ms: performance.now() - started };
  } catch (error) {
    return { status: 0, body: String(error), headers: new Headers(), ms: performance.now() - started };
  }
}

let addresses = 0;
/** A client address no other request of this run has used: a counter of its own. */
export function freshIp(): string {
  addresses++;
  return `10.${(addresses >> 16) & 255}.${(addresses >> 8) & 255}.${addresses & 255}`;
}

export interface FleetAccount {
  email: string;
  password: string;
  companies: [number, number];
}

/**
 * Two companies and an owner of both, written straight into the database the running instances migrated (the
 * operator CLI would cost a process start per record; the CLI has tests of its own). `cost`: the password hash's
 * (the tests' cheap one unless given; a login's verification costs what the stored hash says).
 */
export async function createFleetAccount(
  databaseUrl: string,
  cost: { memoryCost: number; timeCost: number } = { memoryCost: 1024, timeCost: 1 },
): Promise<FleetAccount> {
  const email = `fault-${process.pid}-${Date.now()}@example.test`;
  const password = 'a password long enough';
  const hash = await argon2.hash(password, { type: argon2.argon2id, ...cost, parallelism: 1 });
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const companies = await client.query<{ id: number }>(
      `INSERT INTO company (name) VALUES ('Alpha'), ('Beta') RETURNING id`,
    );
    const employee = await client.query<{ id: number }>(
      `INSERT INTO employee (email, name, password_hash) VALUES ($1, 'Fault Tester', $2) RETURNING id`,
      [email, hash],
    );
    const [alpha, beta] = companies.rows.map((row) => row.id);
    await client.query(
      `INSERT INTO membership (employee_id, company_id, permissions) VALUES ($1, $2, '{*}'), ($1, $3, '{*}')`,
      [employee.rows[0].id, alpha, beta],
    );
    return { email, password, companies: [alpha, beta] };
  } finally {
    await client.end();
  }
}

export interface Session {
  jwt: string;
  refresh_token: string;
  session_id: string;
}

export async function logIn(url: string, account: FleetAccount, companyIndex = 0, ip = freshIp()): Promise<Answer> {
  return call(url, 'POST', '/v1/users/authenticatefinish', {
    ip,
    body: { email: account.email, password: account.password, company_id: account.companies[companyIndex] },
  });
}

/** Starts `count` built service processes on one database and Redis, and waits until each sees them all. */
export async function startFleet(
  count: number,
  env: Record<string, string>,
  {
    awaitFleet = true,
    perInstance = () => ({}),
  }: { awaitFleet?: boolean; perInstance?: (index: number) => Record<string, string> } = {},
): Promise<RunningService[]> {
  const services = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      startService({
        ...CHILD_TEST_ENV,
        JWT_SECRET: 'fault-test-secret-that-is-at-least-32-bytes',
        // Every instance of one fleet signs with the same key, as a real fleet must.
        JWT_PRIVATE_KEY_FILE: TEST_SIGNING_KEY.privateFile,
        LOG_LEVEL: 'info',
        PORT: '0',
        HOST: '127.0.0.1',
        RATE_LIMIT_SCALE: '1',
        TRUST_PROXY: '127.0.0.1',
        ...env,
        ...perInstance(index),
      }),
    ),
  );
  if (env.REDIS_URL && awaitFleet) await Promise.all(services.map((service) => fleetOf(service, count)));
  return services;
}

/** Waits until the instance's heartbeat has counted `instances` live instances (its `fleet_size` log line). */
export async function fleetOf(service: RunningService, instances: number, withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  const seen = () =>
    logRecords(service.child.stdout)
      .filter((record) => record.event === 'fleet_size')
      .at(-1)?.instances === instances;
  while (!seen()) {
    if (Date.now() > deadline) throw new Error(`the instance did not count ${instances} live instances in time`);
    await sleep(50);
  }
}

/** Reads one unlabelled metric from the instance's Prometheus text. */
export async function metric(url: string, name: string): Promise<number> {
  const answer = await call(url, 'GET', '/metrics', { timeoutMs: 5000 });
  const match = new RegExp(`^${name}(?:\\{\\})? (\\d+(?:\\.\\d+)?)$`, 'm').exec(String(answer.body));
  return match ? Number(match[1]) : Number.NaN;
}

/**
 * Background traffic on every instance while a fault is injected: authenticated reads, logins and lists,
 * a few workers with a short pause, each request from a fresh address so the load itself is not rate limited.
 * Bounded: it stops when told, and after `maxRequests` in any case.
 */
export class Load {
  readonly answers: Array<{ path: string; status: number; body: unknown }> = [];
  private stopped = false;
  private readonly workers: Promise<void>[] = [];

  constructor(
    private readonly urls: string[],
    private readonly account: FleetAccount,
    private readonly jwt: string,
    private readonly maxRequests = 20_000,
  ) {}

  start(workers = 4): this {
    for (let w = 0; w < workers; w++) this.workers.push(this.run(w));
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.workers);
  }

  get serverErrors() {
    return this.answers.filter((answer) => answer.status >= 500 && answer.status !== 503);
  }

  private async run(worker: number): Promise<void> {
    for (let i = 0; !this.stopped && this.answers.length < this.maxRequests; i++) {
      const url = this.urls[(worker + i) % this.urls.length];
      const kind = i % 10;
      let path = '/v1/users/me';
      let answer: Answer;
      if (kind === 0) {
        path = '/v1/users/authenticatefinish';
        answer = await logIn(url, this.account);
      } else if (kind < 4) {
        path = '/v1/users';
        answer = await call(url, 'GET', path, { credential: this.jwt, ip: freshIp() });
      } else {
        answer = await call(url, 'GET', path, { credential: this.jwt, ip: freshIp() });
      }
      this.answers.push({ path, status: answer.status, body: answer.body });
      await sleep(5);
    }
  }
}
