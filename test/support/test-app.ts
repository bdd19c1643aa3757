import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test, type TestingModuleBuilder } from '@nestjs/testing';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { AppModule } from '../../src/app.module';
import { configureApp } from '../../src/operations/bootstrap/configure-app';
import { createHttpAdapter, NEST_APP_OPTIONS } from '../../src/operations/bootstrap/http-adapter';
import { Clock } from '../../src/platform/common/clock/clock';
import { ManualClock } from './manual-clock';
import { createLogger } from '../../src/platform/common/logging/logger';
import { type AppConfig, loadConfig } from '../../src/platform/config/app-config';
import { type ProvisionedDatabase, provisionDatabase } from './databases';
import { LogCapture } from './log-capture';
import { ContractChecker } from './contract';
import { OPENAPI_JSON_PATH } from '../../src/operations/bootstrap/openapi';
import { TEST_SIGNING_KEY } from './signing-keys';

/** Settings every test app gets: cheap password hashing, full logs captured, no demo data unless asked. */
export const TEST_ENV: Record<string, string> = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'info',
  ARGON2_MEMORY_KIB: '1024',
  ARGON2_TIME_COST: '1',
  SEED_DEMO: 'false',
  // EdDSA, as every new deployment signs; the secret beside it verifies HS256 tokens issued before the move
  // (and derives the stored secrets' key), as in a deployment that moved.
  JWT_PRIVATE_KEY_FILE: TEST_SIGNING_KEY.privateFile,
  JWT_SECRET: 'test-secret-that-is-at-least-32-bytes-long!',
  // Tests send bursts from one IP with a frozen clock; the rate-limit tests set their own scale of 1.
  RATE_LIMIT_SCALE: '1000',
  // Likewise for the concurrency cap: bursts of one IP would otherwise meet its 20; its own tests set 20.
  CONCURRENCY_LIMIT: '1000',
  // No DATABASE_CONNECT_TIMEOUT_MS: the service's 1.5 s default (issue 36). A first connection slower than that
  // fails this file's start as it fails the service's boot (commit 7b2ef1f saw one in CI on a loaded machine).
};

export interface TestAppOptions {
  /** Use this database instead of provisioning a new one (two instances sharing one database). */
  database?: ProvisionedDatabase;
  env?: Record<string, string>;
  clock?: Clock;
  /** Further provider overrides, e.g. a controller that exists only for a test. */
  configure?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
  extraModules?: unknown[];
}

export interface TestApp {
  app: NestFastifyApplication;
  config: AppConfig;
  database: ProvisionedDatabase;
  clock: Clock;
  logs: LogCapture;
  http(): TestAgent;
  close(): Promise<void>;
}

/**
 * The real application — same modules, adapter, filter, pipes and hooks as `npm start` — on a database of its
 * own, with an injectable clock and captured logs.
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const ownsDatabase = options.database === undefined;
  const database = options.database ?? (await provisionDatabase());
  const config = loadConfig({ ...TEST_ENV, ...database.env, ...options.env });
  const logs = new LogCapture();
  const logger = createLogger(config.logLevel, logs);
  const clock = options.clock ?? new ManualClock();

  let builder = Test.createTestingModule({
    imports: [AppModule.forRoot(config, logger), ...((options.extraModules ?? []) as never[])],
  })
    .overrideProvider(Clock)
    .useValue(clock);
  if (options.configure) builder = options.configure(builder);
  const moduleRef = await builder.compile();
  moduleRef.useLogger(false);

  const app = moduleRef.createNestApplication<NestFastifyApplication>(createHttpAdapter(config), {
    ...NEST_APP_OPTIONS,
    logger: false,
  });
  configureApp(app, logger);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  const served = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url: OPENAPI_JSON_PATH });
  const contract = ContractChecker.for(served.body);

  return {
    app,
    config,
    database,
    clock,
    logs,
    http: () => checkedAgent(request(app.getHttpServer()), contract),
    close: async () => {
      await app.close();
      if (ownsDatabase) await database.drop();
      assertNoSecretLogged(logs);
    },
  };
}

/** What a credential or a password hash looks like; none may ever reach a log line. */
const SECRET_SHAPES: Array<[string, RegExp]> = [
  ['a JWT', /eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]{10,}/],
  ['an API key', /ak_[\w-]{8,}:[\w-]{8,}/],
  ['a SCIM token', /scim_[\w-]{20,}/],
  ['a password hash', /\$argon2id\$/],
];

/**
 * Run when every test app closes, so the whole suite is checked: whatever a test did, the service's log holds
 * no token, API key or password hash. (Tests that know a password check for it by value as well.)
 */
function assertNoSecretLogged(logs: LogCapture): void {
  for (const [what, shape] of SECRET_SHAPES) {
    const line = logs.lines.find((candidate) => shape.test(candidate));
    if (line) throw new Error(`The service logged ${what}: ${line.slice(0, 300)}`);
  }
}

const CHECKED_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as const;

/**
 * The supertest agent of every e2e test, with two assertions added to each request: its answer carries
 * `X-Content-Type-Options: nosniff`, and keeps to the OpenAPI document the app serves (see {@link ContractChecker}). The test that produced an undocumented answer
 * fails, naming the operation, the status and what differs.
 */
function checkedAgent(agent: TestAgent, contract: ContractChecker): TestAgent {
  for (const method of CHECKED_METHODS) {
    const send = agent[method].bind(agent) as (url: string) => request.Test;
    (agent as unknown as Record<string, (url: string) => request.Test>)[method] = (url: string) =>
      send(url).expect((res) => {
        // docs/contract.md "Error bodies": every answer, of every test, whatever its status.
        if (res.headers['x-content-type-options'] !== 'nosniff') {
          throw new Error(`${method.toUpperCase()} ${url} → ${res.status} without X-Content-Type-Options: nosniff`);
        }
        const problems = contract.problems(method, url, res);
        if (problems.length > 0) throw new Error(`OpenAPI contract: ${problems.join('\n')}`);
      });
  }
  return agent;
}
