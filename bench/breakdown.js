'use strict';
/**
 * `node bench/breakdown.js` (after `npm run build`): where the microseconds between the bare NestJS route and
 * GET /v1/users/me go. The same build runs as several processes (bench/probe-service.js), each with one piece of
 * the request path turned off, and one with all of them off; every row is measured in the same interleaved
 * rounds as the bare route, the floor and the whole service. A piece's cost is the whole service's server CPU
 * per request minus that of the process without it; what is left once all pieces are off, minus the floor, is
 * the framework's share (Nest's router, guards chain, pipes and the handler's own work).
 *
 * PostgreSQL (BENCH_DATABASE_URL or DATABASE_URL): every process shares one fresh database, so one login serves
 * all of them; counters in memory; the credential is cached after the first request, so no row queries it.
 */
const { startServer, startService, killAll } = require('./lib/processes');
const { settings, serviceEnv, json, seed, prepare, measureRows, withFreshDatabase } = require('./lib/measure');

const PIECES = ['request-id', 'headers', 'metrics', 'limiter', 'credential', 'access', 'input'];

async function main() {
  if (!settings.databaseUrl) throw new Error('set BENCH_DATABASE_URL or DATABASE_URL (PostgreSQL)');
  const table = await withFreshDatabase(settings.databaseUrl, async (databaseUrl) => {
    const env = serviceEnv({ DATABASE_URL: databaseUrl });
    const companyId = await seed(env);
    const variants = [['whole service', ''], ...PIECES.map((piece) => [`without ${piece}`, piece])];
    variants.push(['without all of them', PIECES.join(',')]);
    const started = [];
    try {
      for (const [label, offList] of variants) {
        started.push({
          label,
          service: await startService({ ...env, PROBE_OFF: offList }, { label, entry: 'bench/probe-service.js' }),
        });
      }
      const { jwt } = await prepare(started[0].service.url, companyId);
      const me = await json(`${started[0].service.url}/v1/users/me`, { headers: { authorization: jwt } });
      const bareEnv = { PATH: process.env.PATH, BARE_BODY: JSON.stringify(me.body) };
      const bare = await startServer('bench/bare-app.js', bareEnv, { label: 'bare app' });
      const floor = await startServer('bench/bare-app.js', { ...bareEnv, BARE_VARIANT: 'floor' }, { label: 'floor' });
      started.push({ service: bare }, { service: floor });
      const rows = await measureRows([
        { name: 'bare NestJS route', url: `${bare.url}/bare/me`, pid: bare.child.pid, baseline: true },
        { name: 'floor', url: `${floor.url}/v1/bare/me`, pid: floor.child.pid },
        ...started
          .filter((entry) => entry.label)
          .map(({ label, service }) => ({
            name: label,
            url: `${service.url}/v1/users/me`,
            headers: { authorization: jwt },
            service: service.url,
            pid: service.child.pid,
          })),
      ]);
      return report(rows);
    } finally {
      for (const { service } of started) await service.stop();
    }
  });
  process.stdout.write(`${table}\n`);
}

function report(rows) {
  const cpu = (name) => rows.find((row) => row.name === name).cpuUsPerRequest;
  const whole = cpu('whole service');
  const lines = [
    `${settings.rounds} rounds × ${settings.duration} s, ${settings.connections} connections; server CPU µs per request (median of rounds)`,
    '',
    '| row | req/s | CPU µs/req | statuses |',
    '|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.name} | ${Math.round(row.rps).toLocaleString('en')} | ${row.cpuUsPerRequest.toFixed(1)} | ${Object.entries(
          row.statuses,
        )
          .map(([code, count]) => `${code}: ${count}`)
          .join(', ')} |`,
    ),
    '',
    '| piece | µs per request (whole service − service without it) |',
    '|---|---|',
    ...PIECES.map((piece) => `| ${piece} | ${(whole - cpu(`without ${piece}`)).toFixed(1)} |`),
    `| all pieces at once | ${(whole - cpu('without all of them')).toFixed(1)} |`,
    `| framework and handler (service without all pieces − floor) | ${(cpu('without all of them') - cpu('floor')).toFixed(1)} |`,
    `| floor − bare route (guards chain, param decorator, pipe, headers of the floor app) | ${(cpu('floor') - cpu('bare NestJS route')).toFixed(1)} |`,
    `| total: service − bare route | ${(whole - cpu('bare NestJS route')).toFixed(1)} |`,
  ];
  return lines.join('\n');
}

process.on('SIGINT', () => {
  killAll();
  process.exit(130);
});
main().catch((error) => {
  killAll();
  process.stderr.write(`breakdown failed: ${error.stack ?? error}\n`);
  process.exit(1);
});
