import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';
import { JwtKeyRing } from '../../../platform/keys/jwt-key-ring';
import type { SessionStore } from '../session-store';
import { TokenIssuer } from '../token-issuer.service';
import { JWT_EXAMPLE } from './login-result.dto';

const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString()) as Record<string, unknown>;

describe('the sample token of the OpenAPI document', () => {
  it('has the shape of a token the service issues: EdDSA, its kid, the same claims', async () => {
    const store = { insertToken: async () => undefined } as unknown as SessionStore;
    const ring = new JwtKeyRing({ privateKey: generateKeyPairSync('ed25519').privateKey });
    const now = new Date('2026-11-26T10:00:00Z');
    const { jwt } = await new TokenIssuer(new JwtService(), ring, store).issue(
      {} as never,
      { id: randomUUID(), employeeId: 1, createdAt: now },
      1,
      now,
    );
    const [issuedHeader, issuedClaims] = jwt.split('.').map((part, i) => (i < 2 ? decode(part) : part));
    const [header, claims, signature] = JWT_EXAMPLE.split('.');

    expect(decode(header)).toEqual({ alg: 'EdDSA', typ: 'JWT', kid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(Object.keys(decode(header))).toEqual(Object.keys(issuedHeader as object));
    expect(Object.keys(decode(claims)).sort()).toEqual(Object.keys(issuedClaims as object).sort());
    // An Ed25519 signature is 64 bytes (HS256's is 32).
    expect(Buffer.from(signature, 'base64url').length).toBe(64);
  });
});
