'use strict';
/**
 * Issue 28: the rate limiter's override lookup is a memory read. Two services on databases of their own, the same
 * seed, one of them with overrides present (set through the CLI before it starts): one for another company
 * (the lookup misses its company), and one for the bench's own company on `GET users` (the lookup hits, in shadow
 * mode). The same request on both in interleaved rounds: the difference between the two rows is the lookup's cost.
 */
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { cliAt, startService } = require('./processes');
const { json, measureRows, seed, serviceEnv, EMAIL, PASSWORD } = require('./measure');

async function login(url, companyId) {
  const answer = await json(`${url}/v1/users/authenticatefinish`, {
    method: 'POST',
    body: { email: EMAIL, password: PASSWORD, company_id: companyId },
  });
  if (answer.status !== 200) throw new Error(`login failed: ${answer.status}`);
  return answer.body.jwt;
}

async function overrideRows(baseline) {
  const dirs = [mkdtempSync(join(tmpdir(), 'staff-auth-bench-')), mkdtempSync(join(tmpdir(), 'staff-auth-bench-'))];
  const [plainEnv, overriddenEnv] = dirs.map((dir) => serviceEnv({ DATA_DIR: dir, SEED_DEMO: 'false' }));
  const services = [];
  try {
    const plainCompany = await seed(plainEnv);
    const company = await seed(overriddenEnv);
    const other = await cliAt('.', overriddenEnv, 'company:create', '--name', 'Other Co');
    const cli = (...args) => cliAt('.', overriddenEnv, 'ratelimit:set', ...args);
    await cli('--company', String(other.id), '--method', '*', '--group', '*', '--limit', '10');
    // 10,000 is the most an override allows, and the load exceeds 10,000 per 3 s: the hit is in shadow mode, so
    // the lookup and the shadow check run on every request and the table (scaled) decides, refusing nothing.
    await cli(
      '--company',
      String(company),
      '--method',
      'GET',
      '--group',
      'users',
      '--limit',
      '10000',
      '--mode',
      'shadow',
    );
    const plain = await startService(plainEnv, { label: 'service (no override)' });
    services.push(plain);
    const overridden = await startService(overriddenEnv, { label: 'service (overrides present)' });
    services.push(overridden);
    const row = (name, service, jwt) => ({
      name,
      url: `${service.url}/v1/users/me`,
      headers: { authorization: jwt },
      service: service.url,
      pid: service.child.pid,
    });
    return await measureRows([
      { ...baseline, name: 'baseline again (for the override rows)', baseline: true },
      row('GET /v1/users/me, JWT, memory store, no override anywhere', plain, await login(plain.url, plainCompany)),
      row(
        'GET /v1/users/me, JWT, memory store, overrides present (own company: shadow, hit)',
        overridden,
        await login(overridden.url, company),
      ),
    ]);
  } finally {
    for (const service of services) await service.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { overrideRows };
