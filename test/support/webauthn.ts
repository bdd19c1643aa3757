import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/** A small CBOR encoder (RFC 8949) for what WebAuthn needs: integers, byte and text strings, arrays, maps. */
type Cbor = number | string | Buffer | Cbor[] | Map<number | string, Cbor>;

function head(major: number, length: number): Buffer {
  const type = major << 5;
  if (length < 24) return Buffer.from([type | length]);
  if (length < 0x100) return Buffer.from([type | 24, length]);
  if (length < 0x10000) return Buffer.from([type | 25, length >> 8, length & 0xff]);
  const out = Buffer.alloc(5);
  out[0] = type | 26;
  out.writeUInt32BE(length, 1);
  return out;
}

export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
  const entries = [...value.entries()].flatMap(([k, v]) => [cbor(k), cbor(v)]);
  return Buffer.concat([head(5, value.size), ...entries]);
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();
const b64url = (data: Buffer) => data.toString('base64url');

export interface CeremonyOptions {
  origin?: string;
  rpId?: string;
  /** User verified (the UV flag); true unless a test says otherwise. */
  userVerified?: boolean;
}

/**
 * A software authenticator holding one discoverable credential (ES256 or Ed25519, `none` attestation): builds the
 * registration and assertion responses a browser would send, signed with its own key, so the API tests exercise
 * the server's real verification.
 */
export class SoftAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  counter = 0;
  userHandle: string | undefined;

  constructor(
    readonly algorithm: 'ES256' | 'Ed25519',
    private readonly defaults: { origin: string; rpId: string },
  ) {
    const pair =
      algorithm === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  private cosePublicKey(): Buffer {
    const jwk = this.publicKey.export({ format: 'jwk' });
    const x = Buffer.from(jwk.x!, 'base64url');
    if (this.algorithm === 'Ed25519') {
      return cbor(
        new Map<number, Cbor>([
          [1, 1],
          [3, -8],
          [-1, 6],
          [-2, x],
        ]),
      );
    }
    const y = Buffer.from(jwk.y!, 'base64url');
    return cbor(
      new Map<number, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, x],
        [-3, y],
      ]),
    );
  }

  private authData(rpId: string, flags: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(this.counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  private clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** The answer to creation options (`options.challenge`, `options.user.id`). */
  register(options: { challenge: string; user: { id: string } }, ceremony: CeremonyOptions = {}) {
    const { origin = this.defaults.origin, rpId = this.defaults.rpId, userVerified = true } = ceremony;
    this.userHandle = options.user.id;
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, this.cosePublicKey()]);
    // UP, UV (when verified), AT (attested credential data present).
    const authData = this.authData(rpId, 0x01 | (userVerified ? 0x04 : 0) | 0x40, attested);
    const attestationObject = cbor(
      new Map<string, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge, origin)),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    };
  }

  /** The answer to request options; moves the counter forward first, as an authenticator does (unless `counter`). */
  assert(challenge: string, ceremony: CeremonyOptions & { counter?: number } = {}) {
    const { origin = this.defaults.origin, rpId = this.defaults.rpId, userVerified = true } = ceremony;
    this.counter = ceremony.counter ?? this.counter + 1;
    const authData = this.authData(rpId, 0x01 | (userVerified ? 0x04 : 0));
    const clientDataJSON = this.clientData('webauthn.get', challenge, origin);
    const signed = Buffer.concat([authData, sha256(clientDataJSON)]);
    const signature =
      this.algorithm === 'ES256' ? sign('sha256', signed, this.privateKey) : sign(null, signed, this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(this.userHandle ? { userHandle: this.userHandle } : {}),
      },
      clientExtensionResults: {},
    };
  }
}
