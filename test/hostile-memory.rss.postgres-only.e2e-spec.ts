import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { resolve } from 'node:path';
import * as fc from 'fast-check';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { type Answer, call, createFleetAccount, type FleetAccount, logIn, type Session, sleep } from './support/fleet';
import { type FuzzContext, type FuzzRequest, type OpenApiDocument, requestsArbitrary } from './support/fuzz';
import { descendants, NPM } from './support/process-tree';
import {
  CHILD_TEST_ENV,
  Child,
  killChildren,
  requireBuild,
  type RunningService,
  serviceStarted,
  startService,
} from './support/processes';

/**
 * `HEAP_SNAPSHOT_DIR=/tmp/x`: the service also writes a heap snapshot there at each reading (compare two with
 * `node scripts/heap-snapshot-diff.js a b`). Writing one costs the service ~150 MiB that glibc keeps, so the RSS
 * bounds are not checked then; the JS heap's is.
 */
const SNAPSHOTS = process.env.HEAP_SNAPSHOT_DIR;
/**
 * docs/contract.md "Runtime": the hostile mix is a long first run, then two identical shorter ones (the issue's
 * measurement: 16,000 fuzzed requests, then 2 × 3,000).
 */
const FIRST_RUN = Number(process.env.HOSTILE_FIRST_RUN_REQUESTS ?? 16_000);
const RUN = Number(process.env.HOSTILE_RUN_REQUESTS ?? 3000);
/** The contract's bounds: under 300 MiB while serving, within 100 MiB of the start 10 s after the traffic. */
const PEAK_BOUND_MIB = 300;
const SETTLED_BOUND_MIB = 100;
const ROOT = resolve(__dirname, '..');
const SEED = 18_018;
const BATCH = 16;
const MIB = 1024 * 1024;
const COLLECTOR = resolve(__dirname, 'support', 'collect-garbage-on-signal.js');

jest.setTimeout(900_000);

function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'))!;
  return Number(line.split(/\s+/)[1]) * 1024;
}

/**
 * An answer's status, or `shed` for the documented overload answer (docs/contract.md, "Beyond the bucket": 503
 * `error_service_unavailable` with `Retry-After`). This test runs the service as production does, shedding on, on
 * a machine that also runs the rest of the suite; when its two cores are saturated the service sheds, as it must.
 * Any other 5xx stays a failure.
 */
type Outcome = number | 'shed';
const SHED_ANSWER_BODY = JSON.stringify({
  error: ['error_service_unavailable'],
  message: 'The service is overloaded; try again shortly.',
});

function send(port: number, agent: Agent, req: FuzzRequest): Promise<Outcome> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body);
    if (req.huge && !req.huge.chunked) headers['content-length'] = req.huge.bytes;
    const outgoing = request({ host: '127.0.0.1', port, method: req.method, path: req.path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => res.statusCode! >= 500 && chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        const shed = res.statusCode === 503 && res.headers['retry-after'] !== undefined && body === SHED_ANSWER_BODY;
        // Named in the test's output, so a failure says which request it was.
        if (res.statusCode! >= 500 && !shed) console.log(`${res.statusCode} to ${req.method} ${req.path}: ${body}`);
        resolve(shed ? 'shed' : res.statusCode!);
      });
      res.on('error', () => resolve(0));
    });
    outgoing.setTimeout(30_000, () => outgoing.destroy());
    outgoing.on('error', () => resolve(0));
    if (!req.huge) return void outgoing.end(req.body);
    // Bodies over the limit are streamed, as a client would (the service answers 413 before reading them all).
    const piece = Buffer.alloc(64 * 1024, '7');
    let sent = 0;
    const pump = () => {
      while (sent < req.huge!.bytes && !outgoing.destroyed) {
        const size = Math.min(piece.length, req.huge!.bytes - sent);
        sent += size;
        if (!outgoing.write(size === piece.length ? piece : piece.subarray(0, size)))
          return void outgoing.once('drain', pump);
      }
      outgoing.end();
    };
    pump();
  });
}

/** How the service is started: a supervisor's `npm run start:prod`, or a container's bare `node dist/src/main.js`. */
const STARTS: Array<[string, (env: Record<string, string>) => Promise<{ service: RunningService; pid: number }>]> = [
  [
    'npm run start:prod',
    async (env) => {
      const npm = new Child(spawn(NPM, ['run', '-s', 'start:prod'], { cwd: ROOT, env: { ...process.env, ...env } }));
      const service = await serviceStarted(npm);
      // npm's own process is npm's; the instance is the node below it running the service.
      const pid = descendants(npm.process.pid!).find((candidate) =>
        readFileSync(`/proc/${candidate}/cmdline`, 'utf8').includes('dist/src/main.js'),
      );
      if (pid === undefined) throw new Error('no service process below npm');
      return { service, pid };
    },
  ],
  [
    'node dist/src/main.js',
    async (env) => {
      const service = await startService(env);
      return { service, pid: service.child.process.pid! };
    },
  ],
];

/**
 * The contract's memory rule, measured from outside on a built service on PostgreSQL started each documented
 * way, with no flag given by the test (the heap bound must come with the process): RSS sampled from /proc every
 * 100 ms stays under 300 MiB through the hostile mix (every route fuzzed with hostile values: huge strings,
 * made-up credentials, odd headers), and 10 s after the traffic stops, with nothing forced, is within 100 MiB of
 * the start. A leak would show as JS heap kept over the last identical run, read after a forced collection
 * (support/collect-garbage-on-signal.js; issue 18: readings with garbage not yet collected measure V8's timing).
 */
describe.each(STARTS)(
  `memory through a hostile mix (${FIRST_RUN} + 2 × ${RUN} fuzzed requests), started as %s`,
  (_how, start) => {
    let database: ProvisionedDatabase;
    let service: RunningService;
    let pid: number;
    let account: FleetAccount;
    let ctx: FuzzContext;
    let port: number;
    const credential = { jwt: '', apiKey: '' };

    /** A shed answer is retried after its Retry-After, as a client does; anything else is returned. */
    async function unshed(attempt: () => Promise<Answer>): Promise<Answer> {
      for (let tries = 1; ; tries++) {
        const answer = await attempt();
        if (answer.status !== 503 || tries === 10) return answer;
        await sleep(Number(answer.headers.get('retry-after') ?? 1) * 1000);
      }
    }

    async function renew(): Promise<void> {
      const session = await unshed(() => logIn(service.url, account));
      expect(session.status).toBe(200);
      credential.jwt = (session.body as Session).jwt;
      const key = await unshed(() =>
        call(service.url, 'POST', '/v1/apikeys', {
          credential: credential.jwt,
          body: { name: 'hostile', permissions: ['*'] },
        }),
      );
      expect(key.status).toBe(201);
      credential.apiKey = (key.body as { api_key: string }).api_key;
    }

    async function hostileRun(requests: number, seed: number): Promise<Record<string, number>> {
      const agent = new Agent({ keepAlive: true, maxSockets: 8 });
      const arbitrary = requestsArbitrary(ctx);
      const statuses: Record<string, number> = {};
      try {
        for (let sent = 0, batch = 0; sent < requests; batch++) {
          const sample = fc.sample(arbitrary, { seed: seed + batch, numRuns: BATCH });
          const answers = await Promise.all(sample.map((req) => send(port, agent, req)));
          sent += BATCH;
          for (const status of answers) statuses[status] = (statuses[status] ?? 0) + 1;
          if (batch % 20 === 19) await renew();
        }
      } finally {
        agent.destroy();
      }
      return statuses;
    }

    const mib = (bytes: number) => Math.round((bytes / MIB) * 10) / 10;

    /** RSS now, garbage and all: what `ps` shows. */
    function rssNow(): number {
      return mib(rssOf(pid));
    }

    /** The JS heap once all garbage is collected. */
    async function heapHeldMiB(): Promise<number> {
      const marker = '{"memoryAfterGc"';
      const before = service.child.stderr.split(marker).length;
      process.kill(pid, 'SIGUSR2');
      const deadline = Date.now() + 120_000;
      while (service.child.stderr.split(marker).length === before) {
        if (Date.now() > deadline) throw new Error(`no memory reading; stderr: ${service.child.stderr.slice(-2000)}`);
        await sleep(100);
      }
      const line = service.child.stderr.slice(service.child.stderr.lastIndexOf(marker)).split('\n')[0];
      return mib((JSON.parse(line) as { memoryAfterGc: NodeJS.MemoryUsage }).memoryAfterGc.heapUsed);
    }

    beforeAll(async () => {
      requireBuild();
      database = await provisionDatabase('postgres');
      // Production's password hashing, not the tests' cheap one (CHILD_TEST_ENV's ARGON2_MEMORY_KIB=1024,
      // ARGON2_TIME_COST=1), the main cause of memory growth measured at its real cost: argon2 holds
      // ARGON2_MEMORY_KIB (19,456 KiB by default) per hash in flight, MAX_CONCURRENT_HASHES of them at once, and
      // the mix's logins (made-up e-mails against the dummy hash) hash.
      const { ARGON2_MEMORY_KIB: _memory, ARGON2_TIME_COST: _time, ...childDefaults } = CHILD_TEST_ENV;
      ({ service, pid } = await start({
        ...childDefaults,
        ...database.env,
        NODE_ENV: 'production',
        JWT_SECRET: 'hostile-memory-secret-that-is-32-bytes-long',
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        RATE_LIMIT_SCALE: '100000',
        NODE_OPTIONS: `--expose-gc --require ${COLLECTOR}`,
        ...(SNAPSHOTS ? { HEAP_SNAPSHOT_DIR: SNAPSHOTS } : {}),
      }));
      port = Number(new URL(service.url).port);
      // Hashed at production's cost too: the mix's logins for this account verify against it.
      account = await createFleetAccount(database.url!, { memoryCost: 19_456, timeCost: 2 });
      await renew();
      const doc = (await call(service.url, 'GET', '/docs/openapi.json')).body as OpenApiDocument;
      ctx = {
        doc,
        credential: { jwt: () => credential.jwt, apiKey: () => credential.apiKey },
        loginTarget: { email: account.email, password: account.password, companyId: account.companies[0] },
      };
    });

    afterAll(async () => {
      if (pid) process.kill(pid, 'SIGTERM');
      await service?.child.exit(15_000).catch(() => undefined);
      await killChildren();
      await database?.drop();
    });

    it('stays under 300 MiB while serving it, is back within 100 MiB 10 s after, and keeps no heap', async () => {
      // The bound came with the process: V8's flags are on its command line, though the test passed none.
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toContain('--max-old-space-size=');
      // Warm up what every process builds once (compiled code, pools), so the start is a served state.
      for (let i = 0; i < 200; i++) await call(service.url, 'GET', '/v1/users/me', { credential: credential.jwt });
      const startMiB = rssNow();
      let peakMiB = startMiB;
      const sampler = setInterval(() => (peakMiB = Math.max(peakMiB, rssNow())), 100);
      const runs: Array<Record<string, number>> = [];
      let heapBefore: number;
      try {
        runs.push(await hostileRun(FIRST_RUN, SEED), await hostileRun(RUN, SEED + 1_000));
        heapBefore = await heapHeldMiB();
        runs.push(await hostileRun(RUN, SEED + 1_000));
      } finally {
        clearInterval(sampler);
      }
      const rightAfter = rssNow();
      await sleep(10_000);
      const tenSecondsLater = rssNow();
      const heapAfter = await heapHeldMiB();
      const figures = { startMiB, peakMiB, rightAfter, tenSecondsLater, heapBefore, heapAfter, runs };
      console.log(`hostile-run memory (${_how}): ${JSON.stringify(figures)}`);
      for (const statuses of runs) {
        expect(Object.keys(statuses).filter((status) => Number(status) >= 500)).toEqual([]);
        // Shedding may answer some of the mix on a saturated machine, but the memory read is of a mix served:
        // most of every run reached the service's handlers.
        const total = Object.values(statuses).reduce((sum, count) => sum + count, 0);
        expect(statuses.shed ?? 0).toBeLessThan(total / 2);
      }
      // A second identical run adds nothing the heap keeps.
      expect(heapAfter - heapBefore).toBeLessThan(4);
      if (SNAPSHOTS) return;
      expect(peakMiB).toBeLessThan(PEAK_BOUND_MIB);
      expect(tenSecondsLater - startMiB).toBeLessThan(SETTLED_BOUND_MIB);
    });
  },
);
