import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { AppConfig } from '../config/app-config';
import { developmentPrivateKeyPem, developmentSecret } from './development-keys';
import { type Ed25519Jwk, ed25519Jwk } from './jws';

export interface HmacKey {
  kid: string;
  secret: string;
}

/** What signs new tokens: an Ed25519 private key (the default), or an HS256 secret (JWT_SECRET alone). */
export type SigningKey = { alg: 'EdDSA'; kid: string; privateKey: KeyObject } | ({ alg: 'HS256' } & HmacKey);

/** The key id of an HS256 secret is derived from it, so every instance names the same key the same way. */
function kidOf(secret: string): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 12);
}

/**
 * Every key a token of ours can be signed with, by `kid`: one signs, all verify.
 *
 * - Ed25519 (docs/contract.md "Other systems plug in"): JWT_PRIVATE_KEY_FILE signs; its public key and those of
 *   JWT_PUBLIC_KEY_FILES verify and are published at /.well-known/jwks.json. Rotating: list the old key's public
 *   half in JWT_PUBLIC_KEY_FILES, point JWT_PRIVATE_KEY_FILE at the new key; drop the old one after 30 days.
 * - HS256: JWT_SECRET (and JWT_PREVIOUS_SECRETS) signs only when no private key is configured; beside one it
 *   verifies the tokens issued before the move until they expire, so nobody is logged out.
 * - Development with neither: an Ed25519 key and an HS256 secret generated once under DATA_DIR.
 */
export class JwtKeyRing {
  readonly signing: SigningKey;
  /** The HS256 secrets, newest first; the stored secrets' key is derived from them when ENCRYPTION_KEY is unset. */
  readonly hmacKeys: HmacKey[];
  private readonly hmacByKid: Map<string, string>;
  private readonly publicByKid: Map<string, { key: KeyObject; jwk: Ed25519Jwk }>;

  constructor(options: { privateKey?: KeyObject; publicKeys?: KeyObject[]; secrets?: string[] }) {
    this.hmacKeys = (options.secrets ?? []).map((secret) => ({ kid: kidOf(secret), secret }));
    this.hmacByKid = new Map(this.hmacKeys.map((key) => [key.kid, key.secret]));
    const publicKeys = [
      ...(options.privateKey ? [createPublicKey(options.privateKey)] : []),
      ...(options.publicKeys ?? []),
    ];
    this.publicByKid = new Map(publicKeys.map((key) => [ed25519Jwk(key).kid, { key, jwk: ed25519Jwk(key) }]));
    if (options.privateKey) {
      const kid = ed25519Jwk(createPublicKey(options.privateKey)).kid;
      this.signing = { alg: 'EdDSA', kid, privateKey: options.privateKey };
    } else if (this.hmacKeys.length > 0) {
      this.signing = { alg: 'HS256', ...this.hmacKeys[0] };
    } else {
      throw new Error('JwtKeyRing needs a private key or a secret to sign with');
    }
  }

  static fromConfig(config: AppConfig): JwtKeyRing {
    const generated = !config.jwtPrivateKey && !config.jwtSecret && !config.isProduction;
    const privateKey = generated
      ? createPrivateKey({ key: developmentPrivateKeyPem(config.dataDir), format: 'pem' })
      : config.jwtPrivateKey;
    // Without a configured secret, development still has its generated one (tokens issued before the move, and
    // the stored secrets' derived key); production without one has only the private key and ENCRYPTION_KEY.
    const secret = config.jwtSecret ?? (config.isProduction ? undefined : developmentSecret(config.dataDir));
    return new JwtKeyRing({
      privateKey,
      publicKeys: config.jwtPublicKeys,
      secrets: [...(secret === undefined ? [] : [secret]), ...config.jwtPreviousSecrets],
    });
  }

  secretFor(kid: unknown): string | undefined {
    return typeof kid === 'string' ? this.hmacByKid.get(kid) : undefined;
  }

  publicKeyFor(kid: unknown): KeyObject | undefined {
    return typeof kid === 'string' ? this.publicByKid.get(kid)?.key : undefined;
  }

  /** The JWK Set of /.well-known/jwks.json: the signing key's public half first, then the earlier ones. */
  jwks(): { keys: Ed25519Jwk[] } {
    return { keys: [...this.publicByKid.values()].map((entry) => entry.jwk) };
  }
}
