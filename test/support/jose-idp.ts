import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as jose from 'jose';

export type TokenFlaw =
  'none' | 'wrong_aud' | 'wrong_nonce' | 'no_nonce' | 'other_iss' | 'alg_none' | 'expired' | 'unverified';

/**
 * A tiny identity provider built with jose for the tokens oidc-provider will not produce (wrong audience,
 * `alg: none`, a UserInfo answer about someone else...): real HTTP discovery, JWKS, an authorization endpoint that
 * answers at once, a token endpoint that signs the ID token with the flaw asked for, a UserInfo endpoint, and
 * back-channel logout tokens signed with its key.
 */
export class JoseIdp {
  private server?: Server;
  private key?: Awaited<ReturnType<typeof jose.generateKeyPair>>['privateKey'];
  private jwk?: jose.JWK;
  private lastNonce = '';
  flaw: TokenFlaw = 'none';
  /** `null`: the provider tells no e-mail at all (neither in the ID token nor at UserInfo). */
  email: string | null = 'someone@flawed.example';
  /** `null`: no `email_verified` claim at all (Entra ID's shape). The `unverified` flaw makes it `false`. */
  emailVerified: boolean | null = true;
  /** `userinfo`: the ID token carries `sub` only, the e-mail claims come from the UserInfo endpoint. */
  claimsIn: 'id_token' | 'userinfo' = 'id_token';
  /** The `sub` the UserInfo endpoint answers (another than the ID token's is a substitution). */
  userinfoSub = 'flawed-sub';
  readonly sub = 'flawed-sub';
  issuer = '';

  constructor(private readonly clientId: string) {}

  async start(): Promise<void> {
    const { privateKey, publicKey } = await jose.generateKeyPair('RS256', { extractable: true });
    this.key = privateKey;
    this.jwk = { ...(await jose.exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    this.server = createServer((request, response) => {
      void this.handle(request.url ?? '/', response);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.issuer = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async handle(url: string, response: import('node:http').ServerResponse): Promise<void> {
    const parsed = new URL(url, this.issuer);
    const json = (body: unknown) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    switch (parsed.pathname) {
      case '/.well-known/openid-configuration':
        return json({
          issuer: this.issuer,
          authorization_endpoint: `${this.issuer}/authorize`,
          token_endpoint: `${this.issuer}/token`,
          jwks_uri: `${this.issuer}/jwks`,
          userinfo_endpoint: `${this.issuer}/userinfo`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
        });
      case '/jwks':
        return json({ keys: [this.jwk] });
      case '/authorize': {
        const code = `code-${Math.random().toString(36).slice(2)}`;
        this.lastNonce = parsed.searchParams.get('nonce') ?? '';
        const back = new URL(parsed.searchParams.get('redirect_uri')!);
        back.searchParams.set('code', code);
        back.searchParams.set('state', parsed.searchParams.get('state') ?? '');
        response.writeHead(302, { location: back.toString() });
        return void response.end();
      }
      case '/token': {
        // Tests run one flow at a time: the token answers the latest authorization.
        return json({ access_token: 'at', token_type: 'Bearer', expires_in: 60, id_token: await this.idToken() });
      }
      case '/userinfo':
        return json({ sub: this.userinfoSub, ...this.emailClaims() });
      default:
        response.writeHead(404);
        response.end();
    }
  }

  private async idToken(): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const nonce = this.lastNonce;
    const claims: jose.JWTPayload = {
      iss: this.flaw === 'other_iss' ? 'http://127.0.0.1:1' : this.issuer,
      aud: this.flaw === 'wrong_aud' ? 'another-client' : this.clientId,
      sub: this.sub,
      ...(this.claimsIn === 'id_token' ? this.emailClaims() : {}),
      iat: this.flaw === 'expired' ? now - 3600 : now,
      exp: this.flaw === 'expired' ? now - 600 : now + 300,
    };
    if (this.flaw === 'wrong_nonce') claims.nonce = 'not-the-nonce';
    else if (this.flaw !== 'no_nonce') claims.nonce = nonce;
    if (this.flaw === 'alg_none') return new jose.UnsecuredJWT(claims).encode();
    return new jose.SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(this.key!);
  }

  private emailClaims(): Record<string, unknown> {
    const verified = this.flaw === 'unverified' ? false : this.emailVerified;
    if (this.email === null) return {};
    return { email: this.email, ...(verified === null ? {} : { email_verified: verified }) };
  }

  /** A back-channel logout token for this provider's user, as the provider would post it (unique `jti`). */
  logoutToken(jti = `jti-${Math.random().toString(36).slice(2)}`): Promise<string> {
    return new jose.SignJWT({
      sub: this.sub,
      jti,
      events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
    })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'logout+jwt' })
      .setIssuer(this.issuer)
      .setAudience(this.clientId)
      .setIssuedAt()
      .sign(this.key!);
  }
}
