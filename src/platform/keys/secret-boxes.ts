import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { JwtKeyRing } from './jwt-key-ring';

const VERSION = 'v1';

/** What a box seals: each purpose has a key of its own (HKDF salt and info), so one never opens another's values. */
export interface SealPurpose {
  salt: string;
  info: string;
}

export const TOTP_SECRET_PURPOSE: SealPurpose = { salt: 'totp-secret', info: 'staff-auth totp secret v1' };
export const SSO_CLIENT_SECRET_PURPOSE: SealPurpose = { salt: 'sso-client-secret', info: 'staff-auth sso secret v1' };
export const STREAM_SECRET_PURPOSE: SealPurpose = { salt: 'event-stream-secret', info: 'staff-auth stream secret v1' };

interface SealingKey {
  id: string;
  key: Buffer;
}

function derivedFrom(secret: { kid: string; secret: string }, purpose: SealPurpose): SealingKey {
  // A key of its own, derived from the JWT secret: an encrypted secret and a token signature never share a key.
  return { id: secret.kid, key: Buffer.from(hkdfSync('sha256', secret.secret, purpose.salt, purpose.info, 32)) };
}

/**
 * ENCRYPTION_KEY for this purpose: TOTP secrets use it as it is (the first purpose that had it), any other
 * purpose a key derived from it, so two purposes never share a key. Its id is `e` and a digest, never a JWT
 * secret's 12 hex digits.
 */
function ownKey(encryptionKey: Buffer, purpose: SealPurpose): SealingKey {
  const key =
    purpose === TOTP_SECRET_PURPOSE
      ? encryptionKey
      : Buffer.from(hkdfSync('sha256', encryptionKey, purpose.salt, purpose.info, 32));
  return { id: `e${createHash('sha256').update(key).digest('hex').slice(0, 11)}`, key };
}

/**
 * Secrets at rest (TOTP secrets, SSO client secrets, event-stream secrets; any column marked
 * @SealsColumn): AES-256-GCM. The key is ENCRYPTION_KEY when set, else derived (HKDF-SHA256) from the JWT
 * secret as before, each per purpose. A sealed value names the key that sealed it, so every configured key still
 * opens what it sealed: the JWT secrets (JWT_SECRET, JWT_PREVIOUS_SECRETS) after ENCRYPTION_KEY is set, until
 * the re-encryption at start (sealed-columns.ts) has moved everything over. `open` says when a value should be
 * sealed again with the current key (the second-factor check does so on use).
 */
export class SecretBox {
  readonly current: SealingKey;
  private readonly byId: Map<string, Buffer>;

  constructor(ring: Pick<JwtKeyRing, 'hmacKeys'>, purpose: SealPurpose, encryptionKey?: Buffer) {
    const keys = [
      ...(encryptionKey ? [ownKey(encryptionKey, purpose)] : []),
      ...ring.hmacKeys.map((secret) => derivedFrom(secret, purpose)),
    ];
    if (keys.length === 0) throw new Error('A secret box needs ENCRYPTION_KEY or a JWT secret');
    this.current = keys[0];
    this.byId = new Map(keys.map((key) => [key.id, key.key]));
  }

  /** The prefix of every value sealed with the current key: what re-encryption leaves alone. */
  get currentPrefix(): string {
    return `${VERSION}.${this.current.id}.`;
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    const encrypted = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, this.current.id, iv, cipher.getAuthTag(), encrypted]
      .map((part) => (Buffer.isBuffer(part) ? part.toString('base64url') : part))
      .join('.');
  }

  /** The secret, or null when the value is malformed, tampered with, or sealed with a key no longer configured. */
  open(sealed: string): { plain: string; stale: boolean } | null {
    const [version, id, iv, tag, encrypted] = sealed.split('.');
    const key = this.byId.get(id);
    if (version !== VERSION || !key || encrypted === undefined) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      const plain = Buffer.concat([decipher.update(Buffer.from(encrypted, 'base64url')), decipher.final()]);
      return { plain: plain.toString('utf8'), stale: id !== this.current.id };
    } catch {
      return null;
    }
  }

  /** The value sealed with the current key, or null when it cannot be opened (left as it is). */
  reseal(sealed: string): string | null {
    const opened = this.open(sealed);
    return opened === null ? null : this.seal(opened.plain);
  }
}

/** TOTP secrets' box (the injection token of the second-factor check and enrolment). */
export class TotpSecretBox extends SecretBox {
  constructor(ring: Pick<JwtKeyRing, 'hmacKeys'>, encryptionKey?: Buffer) {
    super(ring, TOTP_SECRET_PURPOSE, encryptionKey);
  }
}

/** SSO client secrets' box. */
export class SsoSecretBox extends SecretBox {
  constructor(ring: Pick<JwtKeyRing, 'hmacKeys'>, encryptionKey?: Buffer) {
    super(ring, SSO_CLIENT_SECRET_PURPOSE, encryptionKey);
  }
}

/** Security-event streams' signing secrets' box (docs/contract.md: stored encrypted like the SSO client secrets). */
export class StreamSecretBox extends SecretBox {
  constructor(ring: Pick<JwtKeyRing, 'hmacKeys'>, encryptionKey?: Buffer) {
    super(ring, STREAM_SECRET_PURPOSE, encryptionKey);
  }
}
