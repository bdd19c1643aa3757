'use strict';
/**
 * What the security-event stream outbox costs each recorded event (issue 26), on PostgreSQL: the same recorder
 * call (one event per transaction, as a request records it) timed without the outbox, with the outbox and no
 * stream in the company (the usual case), and with one active stream (the event's outbox row written too).
 * Alternating rounds, medians per shape.
 *
 * Run: `npm run -s build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/event-streams-outbox.bench.js`
 * (STREAMS_BENCH_EVENTS changes the 2,000 events per shape and round.)
 */
const { randomUUID } = require('node:crypto');
require('reflect-metadata');
const { DataSource } = require('typeorm');
const { AuditRecorder } = require('../dist/src/audit/recorder/audit-recorder.service');
const { SystemClock } = require('../dist/src/platform/common/clock/clock');
const { createLogger } = require('../dist/src/platform/common/logging/logger');
const { AppMetrics } = require('../dist/src/platform/common/metrics/app-metrics');
const { loadConfig } = require('../dist/src/platform/config/app-config');
const { dataSourceOptions, databaseSchema } = require('../dist/src/data-source');
const { runPendingMigrationsFor } = require('../dist/src/platform/database/migration-runner');
const { StreamOutbox } = require('../dist/src/audit/event-streams/stream-outbox');
const { withFreshDatabase } = require('./lib/measure');

const EVENTS = Number(process.env.STREAMS_BENCH_EVENTS ?? 2000);
const ROUNDS = 3;

async function timeShape(dataSource, recorder, companyId) {
  const event = {
    type: 'permissions.changed',
    companyId,
    actor: { kind: 'operator', id: null, email: null },
    details: { bench: true },
  };
  const latencies = [];
  for (let i = 0; i < EVENTS; i++) {
    const started = performance.now();
    await dataSource.transaction((manager) => recorder.record(manager, event));
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  return latencies[Math.floor(latencies.length / 2)];
}

async function main() {
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  await withFreshDatabase(serverUrl, async (url) => {
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: url, JWT_SECRET: 'x'.repeat(32) });
    const dataSource = await new DataSource(dataSourceOptions(config)).initialize();
    try {
      await runPendingMigrationsFor(config, databaseSchema(), dataSource);
      const [quiet, streamed] = await dataSource.query(
        `INSERT INTO company (name) VALUES ('No stream'), ('One stream') RETURNING id`,
      );
      await dataSource.query(
        `INSERT INTO event_stream (id, company_id, url, secret, state, created_at)
         VALUES ($1, $2, 'https://receiver.example/hook', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'active', now())`,
        [randomUUID(), streamed.id],
      );
      const plain = new AuditRecorder(dataSource, new SystemClock(), createLogger('silent'), new AppMetrics());
      const withOutbox = new AuditRecorder(dataSource, new SystemClock(), createLogger('silent'), new AppMetrics());
      withOutbox.useOutbox(new StreamOutbox());
      const shapes = {
        'no outbox (before streams)': () => timeShape(dataSource, plain, quiet.id),
        'outbox, company without a stream': () => timeShape(dataSource, withOutbox, quiet.id),
        'outbox, company with one stream': () => timeShape(dataSource, withOutbox, streamed.id),
      };
      const medians = Object.fromEntries(Object.keys(shapes).map((name) => [name, []]));
      await timeShape(dataSource, plain, quiet.id); // warm-up
      for (let round = 0; round < ROUNDS; round++) {
        for (const [name, run] of Object.entries(shapes)) medians[name].push(await run());
      }
      console.log(`recording one event per transaction, ${EVENTS} events x ${ROUNDS} rounds (median ms per event):`);
      for (const [name, values] of Object.entries(medians)) {
        const sorted = [...values].sort((a, b) => a - b);
        console.log(
          `  ${name.padEnd(36)} ${sorted[Math.floor(sorted.length / 2)].toFixed(3)} ms  (rounds: ${values.map((v) => v.toFixed(3)).join(', ')})`,
        );
      }
    } finally {
      await dataSource.destroy();
    }
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
