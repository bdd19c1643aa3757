import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { type Account, createAccount, createCompanies, login } from './support/fixtures';
import { ManualClock } from './support/manual-clock';
import { ed25519KeyFiles } from './support/signing-keys';
import { startTestApp, type TestApp } from './support/test-app';

const ROOT = resolve(__dirname, '..');
const MARKER = '<!-- verify-staff-token: test/jwks-verify.e2e-spec.ts runs the next block -->';

/** docs/api.md's verification snippet, exactly as a reader would copy it. */
function docSnippet(): string {
  const doc = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8');
  const after = doc.slice(doc.indexOf(MARKER) + MARKER.length);
  const block = /^\s*```js\n([\s\S]*?)\n```/.exec(after);
  if (doc.indexOf(MARKER) < 0 || !block) throw new Error('docs/api.md has no verification snippet after its marker');
  return block[1];
}

/** What the separate process printed for each token, and what the Express middleware did with the first. */
interface Verdicts {
  results: Array<{ ok: true; claims: Record<string, unknown> } | { ok: false; code: string }>;
  middleware: { nexted: boolean; staff: unknown; status: number };
}

const RUNNER = `
import { staffAuth, verifyStaffToken } from './staff-token.mjs';
const tokens = JSON.parse(process.argv[2]);
const results = [];
for (const token of tokens) {
  try {
    results.push({ ok: true, claims: await verifyStaffToken(token) });
  } catch (error) {
    results.push({ ok: false, code: error.code ?? String(error) });
  }
}
const req = { headers: { authorization: tokens[0] } };
const res = { statusCode: 0, status(code) { this.statusCode = code; return this; }, json() {} };
let nexted = false;
await staffAuth(req, res, () => { nexted = true; });
console.log(JSON.stringify({ results, middleware: { nexted, staff: req.staff ?? null, status: res.statusCode } }));
`;

/**
 * docs/contract.md "Other systems plug in": another service verifies our tokens offline with jose against
 * /.well-known/jwks.json, in a process of its own, before and after a key rotation (instances restarted on the
 * same database with a new private key, the old public key kept, then dropped).
 */
describe('another service verifies tokens with jose and the JWKS, across a key rotation', () => {
  let database: ProvisionedDatabase;
  let dir: string;
  let app: TestApp | undefined;
  let account: Account;
  let companyId: number;
  const first = ed25519KeyFiles();
  const second = ed25519KeyFiles();

  beforeAll(async () => {
    database = await provisionDatabase();
    dir = mkdtempSync(join(tmpdir(), 'jwks-verifier-'));
    writeFileSync(join(dir, 'staff-token.mjs'), docSnippet());
    writeFileSync(join(dir, 'run.mjs'), RUNNER);
    // The verifier resolves jose as an installed dependency of its own project would.
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  });
  afterAll(async () => {
    await app?.close();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** An instance on the shared database with these keys, listening on a real port (the verifier fetches JWKS). */
  async function restartWith(env: Record<string, string>): Promise<string> {
    await app?.close();
    // Real time: jose checks `exp` and `iat` against the verifier's clock.
    app = await startTestApp({ database, env, clock: new ManualClock(Date.now()) });
    await app.app.listen(0, '127.0.0.1');
    return app.app.getUrl();
  }

  async function verify(url: string, tokens: string[]): Promise<Verdicts> {
    const { stdout } = await promisify(execFile)(process.execPath, ['run.mjs', JSON.stringify(tokens)], {
      cwd: dir,
      env: { PATH: process.env.PATH, STAFF_AUTH_URL: url },
      timeout: 20_000,
    });
    return JSON.parse(stdout) as Verdicts;
  }

  const claimsOf = (session: { session_id: string }) => ({
    ok: true,
    claims: { employeeId: account.id, companyId, sessionId: session.session_id, tokenId: expect.any(String) },
  });

  it('verifies with the key published, keeps verifying the old key while it is listed, refuses it once dropped', async () => {
    let url = await restartWith({ JWT_PRIVATE_KEY_FILE: first.privateFile });
    [{ id: companyId }] = await createCompanies(app!, 'Alpha');
    account = await createAccount(app!, [companyId], ['users:read']);
    const before = await login(app!, account, companyId);
    const jwks = await app!.http().get('/.well-known/jwks.json').expect(200);
    expect(jwks.headers['cache-control']).toBe('public, max-age=300');
    expect(jwks.body.keys).toHaveLength(1);
    const forged = `${before.jwt.slice(0, -4)}AAAA`;
    const beforeRotation = await verify(url, [before.jwt, `Bearer ${before.jwt}`, forged, 'garbage']);
    expect(beforeRotation.results).toEqual([
      claimsOf(before),
      claimsOf(before),
      { ok: false, code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' },
      { ok: false, code: 'ERR_JWS_INVALID' },
    ]);
    expect(beforeRotation.middleware).toEqual({ nexted: true, staff: claimsOf(before).claims, status: 0 });

    // Rotated: a new private key signs, the old public key is still accepted and published.
    url = await restartWith({ JWT_PRIVATE_KEY_FILE: second.privateFile, JWT_PUBLIC_KEY_FILES: first.publicFile });
    const after = await login(app!, account, companyId);
    const kids = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString()).kid;
    expect(kids(after.jwt)).not.toBe(kids(before.jwt));
    const published = (await app!.http().get('/.well-known/jwks.json').expect(200)).body.keys.map(
      (key: { kid: string }) => key.kid,
    );
    expect(published).toEqual([kids(after.jwt), kids(before.jwt)]);
    expect((await verify(url, [before.jwt, after.jwt])).results).toEqual([claimsOf(before), claimsOf(after)]);
    await app!.http().get('/v1/users/me').set('authorization', before.jwt).expect(200);

    // The old key dropped: neither the verifier nor the service takes its tokens.
    url = await restartWith({ JWT_PRIVATE_KEY_FILE: second.privateFile });
    const dropped = await verify(url, [after.jwt, before.jwt]);
    expect(dropped.results).toEqual([claimsOf(after), { ok: false, code: 'ERR_JWKS_NO_MATCHING_KEY' }]);
    expect((await app!.http().get('/v1/users/me').set('authorization', before.jwt)).status).toBe(401);
  });
});
