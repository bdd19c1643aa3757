'use strict';
/**
 * Issue 26: EdDSA (Ed25519) tokens cost the hot path nothing more than HS256 ones, because a token's signature is
 * checked once and the credential cache answers every later request. Two services on embedded databases of their
 * own, the same seed: one with JWT_SECRET alone (HS256, as before), one with JWT_PRIVATE_KEY_FILE (EdDSA). The
 * same request on both in interleaved rounds (the ratio EdDSA / HS256 is taken within each round). Beside it, what
 * the cache saves: one signature check of each kind, uncached, with the service's own code, in this process.
 */
const { generateKeyPairSync, randomBytes } = require('node:crypto');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');
const { startService } = require('./processes');
const { json, measureRows, median, seed, serviceEnv, EMAIL, PASSWORD } = require('./measure');

async function login(url, companyId) {
  const answer = await json(`${url}/v1/users/authenticatefinish`, {
    method: 'POST',
    body: { email: EMAIL, password: PASSWORD, company_id: companyId },
  });
  if (answer.status !== 200) throw new Error(`login failed: ${answer.status}`);
  return answer.body.jwt;
}

const HS256_ROW = 'GET /v1/users/me, JWT HS256 (JWT_SECRET alone), memory store';
const EDDSA_ROW = 'GET /v1/users/me, JWT EdDSA (JWT_PRIVATE_KEY_FILE), memory store';

/** µs per uncached signature check, HS256 (@nestjs/jwt, as the strategy calls it) and EdDSA (jws.js). */
function signatureChecks() {
  const { JwtService } = require(resolve('node_modules/@nestjs/jwt'));
  const jws = require(resolve('dist/src/identity/auth/credentials/jws.js'));
  const secret = randomBytes(32).toString('hex');
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwt = new JwtService({});
  const claims = { sub: '1', cid: 1, sid: 'x', iat: 1, exp: 2 };
  const hs = jwt.sign(claims, { secret, algorithm: 'HS256', keyid: 'k' });
  const ed = jws.signEdDsa(claims, 'k', privateKey);
  const time = (check) => {
    const runs = [];
    for (let round = 0; round < 5; round++) {
      const started = process.hrtime.bigint();
      for (let i = 0; i < 2000; i++) check();
      runs.push(Number(process.hrtime.bigint() - started) / 1000 / 2000);
    }
    return median(runs);
  };
  const hsUs = time(() => jwt.verify(hs, { secret, algorithms: ['HS256'], ignoreExpiration: true }));
  const edUs = time(() => jws.verifyEdDsa(jws.parseJws(ed), publicKey));
  return { hsUs, edUs };
}

async function signingRows(baseline) {
  const dirs = [mkdtempSync(join(tmpdir(), 'staff-auth-bench-')), mkdtempSync(join(tmpdir(), 'staff-auth-bench-'))];
  const keyFile = join(dirs[1], 'jwt-ed25519.pem');
  writeFileSync(keyFile, generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }), {
    mode: 0o600,
  });
  const hsEnv = serviceEnv({ DATA_DIR: dirs[0], SEED_DEMO: 'false' });
  const edEnv = serviceEnv({ DATA_DIR: dirs[1], SEED_DEMO: 'false', JWT_PRIVATE_KEY_FILE: keyFile });
  const services = [];
  try {
    const hsCompany = await seed(hsEnv);
    const edCompany = await seed(edEnv);
    const hs = await startService(hsEnv, { label: 'service (HS256)' });
    services.push(hs);
    const ed = await startService(edEnv, { label: 'service (EdDSA)' });
    services.push(ed);
    const row = (name, service, jwt) => ({
      name,
      url: `${service.url}/v1/users/me`,
      headers: { authorization: jwt },
      service: service.url,
      pid: service.child.pid,
    });
    const hsJwt = await login(hs.url, hsCompany);
    const edJwt = await login(ed.url, edCompany);
    const alg = (token) => JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).alg;
    if (alg(hsJwt) !== 'HS256' || alg(edJwt) !== 'EdDSA') throw new Error('the services did not sign as configured');
    const rows = await measureRows([
      { ...baseline, name: 'baseline again (for the signing rows)', baseline: true },
      row(HS256_ROW, hs, hsJwt),
      row(EDDSA_ROW, ed, edJwt),
    ]);
    return { rows, checks: signatureChecks() };
  } finally {
    for (const service of services) await service.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

/** The report's lines: EdDSA / HS256 on the cached path (median of per-round ratios), and the uncached checks. */
function signingSummary(signing) {
  if (!signing) return [];
  const hs = signing.rows.find((row) => row.name === HS256_ROW);
  const ed = signing.rows.find((row) => row.name === EDDSA_ROW);
  const ratios = ed.runs.map((run, i) => run.rps / hs.runs[i].rps);
  const { hsUs, edUs } = signing.checks;
  return [
    '## Issue 26: EdDSA against HS256 on the cached path',
    '',
    `EdDSA / HS256 req/s, median of per-round ratios: ${median(ratios).toFixed(3)} ` +
      `(rounds: ${ratios.map((ratio) => ratio.toFixed(3)).join(', ')}); server CPU per request ` +
      `HS256 ${hs.cpuUsPerRequest?.toFixed(1)} µs, EdDSA ${ed.cpuUsPerRequest?.toFixed(1)} µs.`,
    `One uncached signature check (paid once per token, then cached): HS256 ${hsUs.toFixed(1)} µs, ` +
      `EdDSA ${edUs.toFixed(1)} µs (${(edUs / hsUs).toFixed(1)}×).`,
    '',
  ];
}

module.exports = { signingRows, signingSummary };
