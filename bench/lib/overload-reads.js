'use strict';
// The read flood of bench/overload.js, in a process of its own so the load generator never shares an event loop
// with the service or with the logins' and logouts' timing. Input: a JSON job on argv[2] (url, headers,
// overallRate, connections, duration). Output: one JSON line: answers and latencies (ms) by status.
const autocannon = require('autocannon');

const job = JSON.parse(process.argv[2]);
const latencies = {};
const instance = autocannon(
  {
    url: job.url,
    headers: job.headers,
    connections: job.connections,
    overallRate: job.overallRate,
    duration: job.duration,
    timeout: 10,
  },
  (error, result) => {
    if (error) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    process.stdout.write(
      `${JSON.stringify({ sent: result.requests.sent, errors: result.errors, timeouts: result.timeouts, latencies })}\n`,
    );
  },
);
instance.on('response', (_client, status, _bytes, responseTime) => {
  (latencies[status] ??= []).push(responseTime);
});
