import { createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config/app-config';
import { ed25519KeyFiles } from '../../../test/support/signing-keys';
import { TotpSecretBox } from './secret-boxes';
import { ed25519Jwk, parseJws, signEdDsa, verifyEdDsa } from './jws';
import { JwtKeyRing } from './jwt-key-ring';

describe('JwtKeyRing', () => {
  it('names an Ed25519 key by its RFC 7638 thumbprint (the example of RFC 8037, appendix A.3)', () => {
    const key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' },
      format: 'jwk',
    });
    expect(ed25519Jwk(key).kid).toBe('kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k');
  });

  it('signs with the private key and publishes it first, then the earlier public keys; never a secret', () => {
    const current = ed25519KeyFiles();
    const earlier = ed25519KeyFiles();
    const config = loadConfig({
      NODE_ENV: 'production',
      JWT_PRIVATE_KEY_FILE: current.privateFile,
      JWT_PUBLIC_KEY_FILES: ` ${earlier.publicFile} `,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    });
    const ring = JwtKeyRing.fromConfig(config);
    const currentKid = ed25519Jwk(createPublicKey(current.privateKey)).kid;
    const earlierKid = ed25519Jwk(createPublicKey(earlier.privateKey)).kid;
    expect(ring.signing).toMatchObject({ alg: 'EdDSA', kid: currentKid });
    expect(ring.jwks().keys.map((key) => key.kid)).toEqual([currentKid, earlierKid]);
    expect(JSON.stringify(ring.jwks())).not.toMatch(/"d"/);
    expect(ring.hmacKeys).toEqual([]);
    const token = signEdDsa({ sub: '1' }, earlierKid, earlier.privateKey);
    expect(verifyEdDsa(parseJws(token)!, ring.publicKeyFor(earlierKid)!)).toBe(true);
    expect(verifyEdDsa(parseJws(token)!, ring.publicKeyFor(currentKid)!)).toBe(false);
  });

  it('JWT_SECRET alone keeps HS256 signing, and publishes no key', () => {
    const ring = JwtKeyRing.fromConfig(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }));
    expect(ring.signing.alg).toBe('HS256');
    expect(ring.jwks()).toEqual({ keys: [] });
  });

  it('development with nothing configured: an Ed25519 key generated once in DATA_DIR (0600), the same on restart', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'key-ring-'));
    const first = JwtKeyRing.fromConfig(loadConfig({ DATA_DIR: dataDir }));
    const again = JwtKeyRing.fromConfig(loadConfig({ DATA_DIR: dataDir }));
    expect(first.signing.alg).toBe('EdDSA');
    expect(again.signing.kid).toBe(first.signing.kid);
    expect(statSync(join(dataDir, 'jwt-ed25519.pem')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dataDir, 'jwt-ed25519.pem'), 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    // The generated HS256 secret still verifies tokens issued before the move.
    expect(first.hmacKeys).toHaveLength(1);
  });
});

describe('TotpSecretBox keys', () => {
  const ring = new JwtKeyRing({ privateKey: generateKeyPairSync('ed25519').privateKey, secrets: ['s'.repeat(32)] });

  it('seals under ENCRYPTION_KEY once set, still opens what the JWT-derived key sealed, and says it is stale', () => {
    const before = new TotpSecretBox(ring);
    const after = new TotpSecretBox(ring, randomBytes(32));
    const old = before.seal('JBSWY3DPEHPK3PXP');
    expect(after.open(old)).toEqual({ plain: 'JBSWY3DPEHPK3PXP', stale: true });
    const resealed = after.reseal(old)!;
    expect(resealed.startsWith(after.currentPrefix)).toBe(true);
    expect(after.open(resealed)).toEqual({ plain: 'JBSWY3DPEHPK3PXP', stale: false });
    // The old box cannot read the new value: ENCRYPTION_KEY is not derived from anything it holds.
    expect(before.open(resealed)).toBeNull();
  });
});
