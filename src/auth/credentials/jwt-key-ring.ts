import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppConfig } from '../../config/app-config';

export interface SigningKey {
  kid: string;
  secret: string;
}

/** The key id is derived from the secret, so every instance names the same key the same way. */
function kidOf(secret: string): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 12);
}

/**
 * Development only: a random secret generated once and kept in DATA_DIR, so tokens survive a restart without
 * anyone having to configure one. Production refuses to start without JWT_SECRET (see loadConfig).
 */
function developmentSecret(dataDir: string): string {
  const path = join(dataDir, 'jwt-secret');
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(path, secret, { mode: 0o600, flag: 'wx' });
  return secret;
}

/**
 * The HS256 keys by `kid`: one signs, all verify. Rotating is: move the current JWT_SECRET to
 * JWT_PREVIOUS_SECRETS, set a new JWT_SECRET, and drop the old one once its tokens have expired (≤ 30 days).
 */
export class JwtKeyRing {
  readonly signing: SigningKey;
  private readonly byKid: Map<string, string>;

  constructor(current: string, previous: string[] = []) {
    this.signing = { kid: kidOf(current), secret: current };
    this.byKid = new Map([current, ...previous].map((secret) => [kidOf(secret), secret]));
  }

  static fromConfig(config: AppConfig): JwtKeyRing {
    return new JwtKeyRing(config.jwtSecret ?? developmentSecret(config.dataDir), config.jwtPreviousSecrets);
  }

  secretFor(kid: unknown): string | undefined {
    return typeof kid === 'string' ? this.byKid.get(kid) : undefined;
  }
}
