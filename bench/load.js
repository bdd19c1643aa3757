'use strict';
// One load run, in a process of its own so the load generator never shares an event loop with a server.
// Input: a JSON job on argv[2]. Output: one JSON line with the figures.
const autocannon = require('autocannon');

const job = JSON.parse(process.argv[2]);
autocannon(
  {
    url: job.url,
    method: job.method || 'GET',
    headers: job.headers || {},
    body: job.body,
    connections: job.connections,
    duration: job.duration,
  },
  (error, result) => {
    if (error) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    const statuses = {};
    for (const [code, count] of Object.entries(result.statusCodeStats || {})) statuses[code] = count.count;
    process.stdout.write(
      `${JSON.stringify({
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        total: result.requests.total,
        errors: result.errors + result.timeouts,
        statuses,
      })}\n`,
    );
  },
);
