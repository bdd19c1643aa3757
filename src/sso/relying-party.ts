import { Injectable } from '@nestjs/common';
import * as jose from 'jose';
import * as oidc from 'openid-client';
import { AppConfig } from '../config/app-config';

/** How long the service waits for the provider on any one call; past it the provider counts as down. */
const PROVIDER_TIMEOUT_SECONDS = 5;
/** Discovery documents are re-read after this long (a provider may move its endpoints). */
const DISCOVERY_TTL_MS = 60 * 60 * 1000;
/**
 * An unknown `kid` refetches the JWKS at most this often: a provider rotating its key is seen at the next login,
 * and someone posting made-up logout tokens cannot make the service hammer the provider.
 */
const JWKS_COOLDOWN_MS = 1000;
/** ID token `exp`/`iat` leeway, seconds. */
export const CLOCK_TOLERANCE_SECONDS = 30;
const SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** The provider could not be reached or answered nonsense: not the person's fault (503 / sso_error). */
export class ProviderUnavailable extends Error {}

/** What a provider's checked ID token says about the person. */
export interface ProviderIdentity {
  issuer: string;
  sub: string;
  sid: string | null;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
}

export interface ClientRef {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/**
 * The OpenID Connect relying party (openid-client): discovery cached per issuer, the authorization URL with
 * PKCE S256, state and nonce, and the code exchange whose ID token is checked by openid-client (iss, aud, azp,
 * nonce, exp/iat with leeway) and then its signature by the provider's JWKS (jose, refetched when a new `kid`
 * appears). Every call to a provider goes through {@link countingFetch}, so the round trips can be measured.
 */
@Injectable()
export class RelyingParty {
  private readonly discovered = new Map<string, { at: number; metadata: Promise<oidc.ServerMetadata> }>();
  private readonly keySets = new Map<string, ReturnType<typeof jose.createRemoteJWKSet>>();
  /** Requests made to providers since start, by URL path; read by tests and the benchmark. */
  readonly calls: string[] = [];

  constructor(private readonly config: AppConfig) {}

  /** `http://` is allowed only for the hosts of SSO_INSECURE_ISSUERS. */
  issuerProblem(issuer: string): string | null {
    let url: URL;
    try {
      url = new URL(issuer);
    } catch {
      return 'issuer must be an absolute URL';
    }
    if (url.protocol === 'https:') return null;
    const insecure = this.config.ssoInsecureIssuers;
    // An entry names a host (any port) or a host:port.
    if (url.protocol === 'http:' && (insecure.includes(url.host.toLowerCase()) || insecure.includes(url.hostname))) {
      return null;
    }
    return 'issuer must be an https:// URL';
  }

  private readonly countingFetch = (url: string, options: oidc.CustomFetchOptions) => {
    this.calls.push(new URL(url).pathname);
    return fetch(url, options as RequestInit);
  };

  /** The issuer's discovery document (cached); {@link ProviderUnavailable} when unreachable or invalid. */
  async metadata(issuer: string, fresh = false): Promise<oidc.ServerMetadata> {
    const cached = this.discovered.get(issuer);
    if (cached && !fresh && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached.metadata;
    const metadata = oidc
      .discovery(new URL(issuer), 'discovery', undefined, undefined, {
        execute: new URL(issuer).protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
        timeout: PROVIDER_TIMEOUT_SECONDS,
        [oidc.customFetch]: this.countingFetch,
      })
      .then((configuration) => configuration.serverMetadata());
    this.discovered.set(issuer, { at: Date.now(), metadata });
    try {
      const read = await metadata;
      if (!read.jwks_uri || !read.token_endpoint) throw new Error('no jwks_uri or token_endpoint');
      return read;
    } catch (error) {
      this.discovered.delete(issuer);
      throw new ProviderUnavailable(`the discovery document of ${issuer} could not be read: ${message(error)}`);
    }
  }

  private async configuration(client: ClientRef): Promise<oidc.Configuration> {
    const metadata = await this.metadata(client.issuer);
    const configuration = new oidc.Configuration(
      metadata,
      client.clientId,
      { [oidc.clockTolerance]: CLOCK_TOLERANCE_SECONDS },
      oidc.ClientSecretBasic(client.clientSecret),
    );
    configuration[oidc.customFetch] = this.countingFetch;
    configuration.timeout = PROVIDER_TIMEOUT_SECONDS;
    if (new URL(client.issuer).protocol === 'http:') oidc.allowInsecureRequests(configuration);
    return configuration;
  }

  async authorizationUrl(
    client: ClientRef,
    flow: { redirectUri: string; state: string; nonce: string; codeVerifier: string },
  ): Promise<string> {
    const configuration = await this.configuration(client);
    return oidc
      .buildAuthorizationUrl(configuration, {
        redirect_uri: flow.redirectUri,
        scope: 'openid email profile',
        response_type: 'code',
        state: flow.state,
        nonce: flow.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(flow.codeVerifier),
        code_challenge_method: 'S256',
      })
      .toString();
  }

  /**
   * Exchanges the code (one request to the token endpoint) and checks the ID token. Throws
   * {@link ProviderUnavailable} when the provider cannot be reached, any other error when the answer is wrong.
   */
  async finish(
    client: ClientRef,
    callbackUrl: URL,
    flow: { state: string; nonce: string; codeVerifier: string; redirectUri: string },
  ): Promise<ProviderIdentity> {
    const configuration = await this.configuration(client);
    let tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers;
    try {
      tokens = await oidc.authorizationCodeGrant(
        configuration,
        callbackUrl,
        {
          pkceCodeVerifier: flow.codeVerifier,
          expectedState: flow.state,
          expectedNonce: flow.nonce,
          idTokenExpected: true,
        },
        { redirect_uri: flow.redirectUri },
      );
    } catch (error) {
      if (isUnreachable(error)) throw new ProviderUnavailable(`the provider did not answer: ${message(error)}`);
      throw error;
    }
    const { payload } = await jose.jwtVerify(tokens.id_token!, this.keySet(configuration.serverMetadata()), {
      issuer: client.issuer,
      audience: client.clientId,
      algorithms: SIGNING_ALGORITHMS,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ['sub', 'exp', 'iat'],
    });
    if (payload.nonce !== flow.nonce) throw new Error('nonce mismatch');
    return {
      issuer: client.issuer,
      sub: payload.sub!,
      sid: typeof payload.sid === 'string' ? payload.sid : null,
      email: typeof payload.email === 'string' ? payload.email.toLowerCase() : null,
      emailVerified: payload.email_verified === true,
      name: typeof payload.name === 'string' ? payload.name : null,
    };
  }

  /** Verifies a provider-signed JWT (a logout token) against the issuer's JWKS. */
  async verify(issuer: string, token: string, options: jose.JWTVerifyOptions): Promise<jose.JWTPayload> {
    const metadata = await this.metadata(issuer);
    const { payload } = await jose.jwtVerify(token, this.keySet(metadata), {
      ...options,
      issuer,
      algorithms: SIGNING_ALGORITHMS,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    });
    return payload;
  }

  private keySet(metadata: oidc.ServerMetadata): ReturnType<typeof jose.createRemoteJWKSet> {
    const uri = metadata.jwks_uri!;
    let set = this.keySets.get(uri);
    if (!set) {
      set = jose.createRemoteJWKSet(new URL(uri), {
        cooldownDuration: JWKS_COOLDOWN_MS,
        timeoutDuration: PROVIDER_TIMEOUT_SECONDS * 1000,
        [jose.customFetch]: (url: string, options: RequestInit) => {
          this.calls.push(new URL(url).pathname);
          return fetch(url, options);
        },
      });
      this.keySets.set(uri, set);
    }
    return set;
  }
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function isUnreachable(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current = error; current && !seen.has(current); current = (current as { cause?: unknown }).cause) {
    seen.add(current);
    const name = (current as { name?: string; code?: string }).name;
    const code = (current as { code?: string }).code;
    if (name === 'TimeoutError' || name === 'AbortError') return true;
    if (code && /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|UND_ERR_)/.test(code)) return true;
    if (current instanceof TypeError && /fetch failed/.test(current.message)) return true;
  }
  return false;
}
