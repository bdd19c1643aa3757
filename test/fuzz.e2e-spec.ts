import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as fc from 'fast-check';
import { DataSource } from 'typeorm';
import { HOST_RESOLVER } from '../src/platform/common/outbound/pinned-request';
import { DnsServer, EVERY_NAME } from './support/dns-server';
import { authed, createAccount, createCompanies, login } from './support/fixtures';
import { MembershipService } from '../src/accounts/membership/membership.service';
import {
  type FuzzContext,
  type FuzzRequest,
  type OpenApiDocument,
  operationsOf,
  requestsArbitrary,
  shapeProblem,
} from './support/fuzz';
import { runSeed } from './support/seed';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * Fuzzes every route and field of the OpenAPI document the service serves, with hostile values (wrong types,
 * deep nesting, NUL and lone surrogates, huge strings, odd ids and headers, bodies over the limit, chunked), a
 * valid credential on part of the requests so protected handlers are reached. Asserts: no 5xx, every error in
 * the contract's shape, no change in any table's row count from a batch in which every write was refused, no
 * stack in the log, no connection reset. `FUZZ_REQUESTS` sets the count (`npm run fuzz`: 50,000), `FUZZ_SEED`
 * replays a run.
 */
const TOTAL = Number(process.env.FUZZ_REQUESTS ?? 3_000);
const SEED = runSeed();
const BATCH = 16;
const FIFTY_MIB = 50 * 1024 * 1024;

jest.setTimeout(Math.max(120_000, TOTAL * 40));

interface Outcome {
  status: number;
  body: string;
  error?: string;
}

function send(port: number, agent: Agent, req: FuzzRequest): Promise<Outcome> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body);
    if (req.huge && !req.huge.chunked) headers['content-length'] = req.huge.bytes;
    const outgoing = request({ host: '127.0.0.1', port, method: req.method, path: req.path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (error: NodeJS.ErrnoException) =>
        resolve({ status: res.statusCode!, body: '', error: error.code }),
      );
    });
    outgoing.setTimeout(30_000, () => outgoing.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ status: 0, body: '', error: error.code ?? error.message }),
    );
    if (!req.huge) return outgoing.end(req.body);
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

describe(`fuzzing every route of /docs/openapi.json (${TOTAL} requests, seed ${SEED})`, () => {
  let t: TestApp;
  let dns: DnsServer;
  let port: number;
  let doc: OpenApiDocument;
  let ctx: FuzzContext;
  let tables: string[];
  const credential = { jwt: '', apiKey: '' };

  beforeAll(async () => {
    // A real DNS server (dnsmasq) answers every host name with loopback, which the fetch policy refuses: no
    // fuzzed URL leaves the machine, and each is looked up and refused as a real answer would be.
    dns = await DnsServer.start({}, { [EVERY_NAME]: ['127.0.0.1'] });
    t = await startTestApp({
      env: { RATE_LIMIT_SCALE: '100000' },
      configure: (builder) => builder.overrideProvider(HOST_RESOLVER).useValue(dns.hostResolver()),
    });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
    const [company, other] = await createCompanies(t, 'Fuzz Co', 'Fuzz Other Co');
    const holder = await createAccount(t, [company.id, other.id], ['*']);
    const target = await createAccount(t, [company.id], ['products:read', 'orders:write']);
    const renew = async () => {
      // A fuzzed PUT /v1/users/{id}/permissions may have taken the holder's own `*` away (legitimately, once it
      // had granted `*` to someone else): give it back, as an operator would.
      await t.app.get(MembershipService).grant(holder.email, company.id, ['*']);
      credential.jwt = (await login(t, holder, company.id)).jwt;
      const key = await authed(t, credential.jwt).post('/v1/apikeys', { name: 'fuzz', permissions: ['*'] });
      if (key.status !== 201) throw new Error(`API key: ${key.status} ${JSON.stringify(key.body)}`);
      credential.apiKey = key.body.api_key;
    };
    await renew();
    (credential as { renew?: () => Promise<void> }).renew = renew;
    doc = (await t.http().get('/docs/openapi.json').expect(200)).body as OpenApiDocument;
    ctx = {
      doc,
      credential: { jwt: () => credential.jwt, apiKey: () => credential.apiKey },
      loginTarget: { email: target.email, password: target.password, companyId: company.id },
    };
    tables = (
      (await t.app
        .get(DataSource)
        .query(
          `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'migrations'`,
        )) as Array<{
        tablename: string;
      }>
    ).map((row) => row.tablename);
  });

  afterAll(async () => {
    await t?.close();
    await dns?.stop();
  });

  const rowCounts = async (): Promise<Record<string, number>> => {
    // A refused login on an existing account is itself recorded (docs/contract.md, "Security events"): not a change.
    // So is a wrong current password at a password change or TOTP set-up, and a wrong one accepting an invitation.
    const only = (table: string) => (table === 'audit_events' ? ` WHERE type <> 'login.failed'` : '');
    const sql = tables
      .map((table) => `SELECT '${table}' AS t, count(*)::int AS n FROM "${table}"${only(table)}`)
      .join(' UNION ALL ');
    const rows = (await t.app.get(DataSource).query(sql)) as Array<{ t: string; n: number }>;
    return Object.fromEntries(rows.map((row) => [row.t, row.n]));
  };

  it('answers every request below 500, every error in the contract shape, and refused requests change no table', async () => {
    console.log(`fuzz: seed ${SEED} (replay with FUZZ_SEED=${SEED}), ${TOTAL} requests`);
    expect(operationsOf(doc).length).toBeGreaterThanOrEqual(30);
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const arbitrary = requestsArbitrary(ctx);
    const failures: string[] = [];
    const byStatus: Record<string, number> = {};
    const routesSeen = new Set<string>();
    let checkedBatches = 0;
    let sent = 0;
    const started = Date.now();
    try {
      // Bodies of 50 MiB, with Content-Length and chunked, once per run: 413 in shape, no reset.
      for (const chunked of [false, true]) {
        const huge = await send(port, agent, {
          method: 'POST',
          route: 'POST /v1/products (50 MiB)',
          path: '/v1/products',
          headers: { 'content-type': 'application/json', authorization: credential.jwt },
          huge: { bytes: FIFTY_MIB, chunked },
          credential: 'jwt',
        });
        if (huge.status !== 413 || huge.error || shapeProblem(413, huge.body)) {
          failures.push(
            `50 MiB body (chunked ${chunked}): ${huge.status} ${huge.error ?? ''} ${huge.body.slice(0, 200)}`,
          );
        }
      }

      for (let batch = 0; sent < TOTAL; batch++) {
        const requests = fc.sample(arbitrary, { seed: SEED + batch, numRuns: Math.min(BATCH, TOTAL - sent) });
        const before = await rowCounts();
        const outcomes = await Promise.all(requests.map((req) => send(port, agent, req)));
        sent += requests.length;
        let wrote = false;
        let revoked = false;
        outcomes.forEach((outcome, i) => {
          const req = requests[i];
          routesSeen.add(req.route);
          byStatus[outcome.error ?? outcome.status] = (byStatus[outcome.error ?? outcome.status] ?? 0) + 1;
          const where = `batch ${batch} #${i} ${req.method} ${req.path.slice(0, 200)}`;
          if (outcome.error) failures.push(`${where}: client saw ${outcome.error}`);
          else if (outcome.status >= 500) failures.push(`${where}: ${outcome.status} ${outcome.body.slice(0, 300)}`);
          else if (outcome.status >= 400) {
            const problem = shapeProblem(outcome.status, outcome.body);
            if (problem) failures.push(`${where}: ${outcome.status} ${problem}: ${outcome.body.slice(0, 200)}`);
          }
          if (req.method !== 'GET' && outcome.status > 0 && outcome.status < 400) wrote = true;
          if (
            (req.credential === 'jwt' || req.credential === 'api_key') &&
            /error_jwt_(blacklisted|hash_not_found)/.test(outcome.body)
          ) {
            revoked = true;
          }
        });
        if (!wrote) {
          const after = await rowCounts();
          checkedBatches++;
          if (JSON.stringify(after) !== JSON.stringify(before)) {
            failures.push(
              `batch ${batch}: every write refused, yet rows changed: ${JSON.stringify(before)} → ${JSON.stringify(after)}`,
            );
          }
        }
        // A fuzzed logout, switch or key deletion may have revoked the valid credential: take a new one.
        if (revoked) await (credential as { renew?: () => Promise<void> }).renew!();
        if (failures.length > 20) break;
      }
    } finally {
      agent.destroy();
    }

    const stackLines = t.logs.lines.filter((line) => line.includes('"stack"'));
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `fuzz: seed ${SEED}: ${sent} requests + 2 of 50 MiB in ${seconds.toFixed(1)} s, ${routesSeen.size} routes, ` +
        `statuses ${JSON.stringify(byStatus)}, ${checkedBatches} all-refused batches with unchanged row counts, ` +
        `${failures.length} failures, ${stackLines.length} log lines with a stack`,
    );
    // One assertion, so that a failing run also shows the logged stack that explains its 500.
    expect({ seed: SEED, failures: failures.slice(0, 20), stacks: stackLines.slice(0, 3) }).toEqual({
      seed: SEED,
      failures: [],
      stacks: [],
    });
    expect(routesSeen.size).toBe(operationsOf(doc).length);
  });
});
