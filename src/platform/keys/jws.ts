import { createHash, type KeyObject, sign, verify } from 'node:crypto';

/** An Ed25519 public key as a JWK (RFC 8037), as /.well-known/jwks.json publishes it. */
export interface Ed25519Jwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

/**
 * RFC 7638: the SHA-256 of the key's required members in lexicographic order, without whitespace. Every instance
 * (and every verifier) names the same key the same way, with nothing configured.
 */
export function ed25519Jwk(publicKey: KeyObject): Ed25519Jwk {
  const { x } = publicKey.export({ format: 'jwk' }) as { x: string };
  const kid = createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
  return { kty: 'OKP', crv: 'Ed25519', x, kid, alg: 'EdDSA', use: 'sig' };
}

const b64json = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * A compact JWS with EdDSA, by node:crypto: synchronous (the credential check's `vouchesFor` is), and no
 * dependency in the service for what is ten lines. @nestjs/jwt (jsonwebtoken) signs HS256 but has no EdDSA.
 */
export function signEdDsa(claims: object, kid: string, privateKey: KeyObject): string {
  const input = `${b64json({ alg: 'EdDSA', typ: 'JWT', kid })}.${b64json(claims)}`;
  return `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`;
}

export interface JwsParts {
  header: { alg?: unknown; kid?: unknown };
  claims: Record<string, unknown>;
  signingInput: string;
  signature: Buffer;
}

/** Splits a compact JWS; `null` for anything that is not three base64url parts with JSON objects in the first two. */
export function parseJws(token: string): JwsParts | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const header: unknown = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
    const claims: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    if (!isObject(header) || !isObject(claims)) return null;
    return {
      header,
      claims,
      signingInput: `${parts[0]}.${parts[1]}`,
      signature: Buffer.from(parts[2], 'base64url'),
    };
  } catch {
    return null;
  }
}

export function verifyEdDsa(parts: JwsParts, publicKey: KeyObject): boolean {
  // An Ed25519 signature is 64 bytes; anything else is refused before the curve arithmetic.
  if (parts.signature.length !== 64) return false;
  return verify(null, Buffer.from(parts.signingInput), publicKey, parts.signature);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
