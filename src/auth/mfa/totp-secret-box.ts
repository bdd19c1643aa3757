import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { JwtKeyRing } from '../credentials/jwt-key-ring';

const VERSION = 'v1';
const INFO = 'staff-auth totp secret v1';

function keyFrom(secret: string): Buffer {
  // A key of its own, derived from the configured secret: an encrypted TOTP secret and a token signature never
  // share a key, and nothing new has to be configured.
  return Buffer.from(hkdfSync('sha256', secret, 'totp-secret', INFO, 32));
}

/**
 * TOTP secrets at rest: AES-256-GCM under a key derived (HKDF-SHA256) from the JWT key ring's secrets. A sealed
 * value names the key (its `kid`) that sealed it, so rotating JWT_SECRET keeps existing secrets readable while
 * the old secret is listed in JWT_PREVIOUS_SECRETS; `open` says when a value should be sealed again with the
 * current key (the second-factor check does so on use).
 */
export class TotpSecretBox {
  constructor(private readonly ring: JwtKeyRing) {}

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', keyFrom(this.ring.signing.secret), iv);
    const encrypted = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, this.ring.signing.kid, iv, cipher.getAuthTag(), encrypted]
      .map((part) => (Buffer.isBuffer(part) ? part.toString('base64url') : part))
      .join('.');
  }

  /** The secret, or null when the value is malformed, tampered with, or sealed with a key no longer configured. */
  open(sealed: string): { plain: string; stale: boolean } | null {
    const [version, kid, iv, tag, encrypted] = sealed.split('.');
    const secret = this.ring.secretFor(kid);
    if (version !== VERSION || !secret || encrypted === undefined) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', keyFrom(secret), Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      const plain = Buffer.concat([decipher.update(Buffer.from(encrypted, 'base64url')), decipher.final()]);
      return { plain: plain.toString('utf8'), stale: kid !== this.ring.signing.kid };
    } catch {
      return null;
    }
  }
}
