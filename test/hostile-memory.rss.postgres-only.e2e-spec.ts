import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { resolve } from 'node:path';
import * as fc from 'fast-check';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { call, createFleetAccount, type FleetAccount, logIn, type Session, sleep } from './support/fleet';
import { type FuzzContext, type FuzzRequest, type OpenApiDocument, requestsArbitrary } from './support/fuzz';
import { CHILD_TEST_ENV, killChildren, requireBuild, type RunningService, startService } from './support/processes';

/**
 * `HEAP_SNAPSHOT_DIR=/tmp/x`: the service also writes a heap snapshot there at each reading (compare two with
 * `node scripts/heap-snapshot-diff.js a b`). Writing one costs the service ~150 MiB that glibc keeps, so the RSS
 * bounds are not checked then; the JS heap's is.
 */
const SNAPSHOTS = process.env.HEAP_SNAPSHOT_DIR;
/** Requests per hostile run; two identical runs are sent. */
const RUN = Number(process.env.HOSTILE_RUN_REQUESTS ?? 5000);
const SEED = 18_018;
const BATCH = 16;
const MIB = 1024 * 1024;
const COLLECTOR = resolve(__dirname, 'support', 'collect-garbage-on-signal.js');

jest.setTimeout(600_000);

function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'))!;
  return Number(line.split(/\s+/)[1]) * 1024;
}

function send(port: number, agent: Agent, req: FuzzRequest): Promise<number> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body);
    if (req.huge && !req.huge.chunked) headers['content-length'] = req.huge.bytes;
    const outgoing = request({ host: '127.0.0.1', port, method: req.method, path: req.path, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
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

/**
 * The issue's measurement from outside: a built service on PostgreSQL, RSS read from /proc before a hostile run
 * (every route fuzzed with hostile values: huge strings, made-up credentials, odd headers), after it, and after a
 * second identical run. RSS must come back within 100 MiB of the start and not grow over the second run.
 *
 * Each reading is taken once garbage is collected (issue 18: the 330-440 MiB readings were garbage V8 had not
 * collected yet, plus heap snapshots' own memory; heap snapshots before and after showed ~5 MiB retained after a
 * first run, compiled code mostly, and nothing after a second). The readings with the garbage are printed too.
 */
describe(`memory after a hostile run (${RUN} fuzzed requests, twice)`, () => {
  let database: ProvisionedDatabase;
  let service: RunningService;
  let account: FleetAccount;
  let ctx: FuzzContext;
  let port: number;
  const credential = { jwt: '', apiKey: '' };

  async function renew(): Promise<void> {
    credential.jwt = ((await logIn(service.url, account)).body as Session).jwt;
    const key = await call(service.url, 'POST', '/v1/apikeys', {
      credential: credential.jwt,
      body: { name: 'hostile', permissions: ['*'] },
    });
    credential.apiKey = (key.body as { api_key: string }).api_key;
  }

  async function hostileRun(): Promise<Record<number, number>> {
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const arbitrary = requestsArbitrary(ctx);
    const statuses: Record<number, number> = {};
    try {
      for (let sent = 0, batch = 0; sent < RUN; batch++) {
        const requests = fc.sample(arbitrary, { seed: SEED + batch, numRuns: BATCH });
        const answers = await Promise.all(requests.map((req) => send(port, agent, req)));
        sent += BATCH;
        for (const status of answers) statuses[status] = (statuses[status] ?? 0) + 1;
        if (batch % 20 === 19) await renew();
      }
    } finally {
      agent.destroy();
    }
    return statuses;
  }

  interface Reading {
    rssMiB: number;
    heapUsedMiB: number;
    heapTotalMiB: number;
    externalMiB: number;
  }

  const mib = (bytes: number) => Math.round((bytes / MIB) * 10) / 10;

  /** RSS now, garbage and all: what `ps` shows. */
  function rssNow(): number {
    return mib(rssOf(service.child.process.pid!));
  }

  /**
   * What the process holds: RSS and heap once all garbage is collected (support/collect-garbage-on-signal.js),
   * so a reading does not depend on whether V8's memory reducer happened to run yet.
   */
  async function held(): Promise<Reading> {
    const marker = '{"memoryAfterGc"';
    const before = service.child.stderr.split(marker).length;
    service.child.process.kill('SIGUSR2');
    const deadline = Date.now() + 120_000;
    while (service.child.stderr.split(marker).length === before) {
      if (Date.now() > deadline) throw new Error(`no memory reading; stderr: ${service.child.stderr.slice(-2000)}`);
      await sleep(100);
    }
    const line = service.child.stderr.slice(service.child.stderr.lastIndexOf(marker)).split('\n')[0];
    const memory = (JSON.parse(line) as { memoryAfterGc: NodeJS.MemoryUsage }).memoryAfterGc;
    // The reading's own RSS (from /proc, like the rest) once the collection is done.
    return {
      rssMiB: rssNow(),
      heapUsedMiB: mib(memory.heapUsed),
      heapTotalMiB: mib(memory.heapTotal),
      externalMiB: mib(memory.external),
    };
  }

  beforeAll(async () => {
    requireBuild();
    database = await provisionDatabase('postgres');
    service = await startService({
      ...CHILD_TEST_ENV,
      ...database.env,
      JWT_SECRET: 'hostile-memory-secret-that-is-32-bytes-long',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      RATE_LIMIT_SCALE: '100000',
      NODE_OPTIONS: `--expose-gc --require ${COLLECTOR}`,
      ...(SNAPSHOTS ? { HEAP_SNAPSHOT_DIR: SNAPSHOTS } : {}),
    });
    port = Number(new URL(service.url).port);
    account = await createFleetAccount(database.url!);
    await renew();
    const doc = (await call(service.url, 'GET', '/docs/openapi.json')).body as OpenApiDocument;
    ctx = {
      doc,
      credential: { jwt: () => credential.jwt, apiKey: () => credential.apiKey },
      loginTarget: { email: account.email, password: account.password, companyId: account.companies[0] },
    };
  });

  afterAll(async () => {
    await killChildren();
    await database?.drop();
  });

  it('returns RSS within 100 MiB of the start after a run, and does not grow over a second identical run', async () => {
    // Warm up what every process builds once (compiled code, pools), so the start is a served state.
    for (let i = 0; i < 200; i++) await call(service.url, 'GET', '/v1/users/me', { credential: credential.jwt });
    const start = await held();
    const first = await hostileRun();
    const rightAfterFirst = rssNow();
    const afterFirst = await held();
    const second = await hostileRun();
    const rightAfterSecond = rssNow();
    await sleep(10_000);
    const tenSecondsLater = rssNow();
    const afterSecond = await held();
    const figures = {
      requestsPerRun: RUN,
      start,
      afterFirst,
      afterSecond,
      rssWithGarbageMiB: { rightAfterFirst, rightAfterSecond, tenSecondsLater },
      first,
      second,
    };
    console.log(`hostile-run memory: ${JSON.stringify(figures)}`);
    for (const statuses of [first, second]) {
      expect(Object.keys(statuses).filter((status) => Number(status) >= 500)).toEqual([]);
    }
    // What the JS heap retains after the first run is what one run compiles and loads once; a second identical
    // run adds nothing that stays.
    expect(afterSecond.heapUsedMiB - afterFirst.heapUsedMiB).toBeLessThan(4);
    if (SNAPSHOTS) return;
    expect(afterFirst.rssMiB - start.rssMiB).toBeLessThan(100);
    expect(afterSecond.rssMiB - afterFirst.rssMiB).toBeLessThan(20);
    // What an operator's `ps` shows 10 s after the load, garbage and all (nothing forced): also within 100 MiB.
    expect(tenSecondsLater - start.rssMiB).toBeLessThan(100);
  });
});
