import { Inject, Injectable } from '@nestjs/common';
import * as jose from 'jose';
import * as oidc from 'openid-client';
import { type FetchInit, OutboundRefused } from '../../platform/common/outbound/pinned-fetch';
import { HOST_RESOLVER, type HostResolver } from '../../platform/common/outbound/pinned-request';
import { AppConfig } from '../../platform/config/app-config';
import { issuerProblem, PROVIDER_TIMEOUT_SECONDS, providerFetch } from './provider-fetch';
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

/** What a provider's checked ID token (and, for the e-mail, its UserInfo answer) says about the person. */
export interface ProviderIdentity {
  issuer: string;
  sub: string;
  sid: string | null;
  email: string | null;
  /** `null`: the provider sent no `email_verified` claim at all (Microsoft Entra ID's work accounts). */
  emailVerified: boolean | null;
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
 * appears); the e-mail from the UserInfo endpoint when the ID token has none. Every request to a provider goes
 * through {@link countingFetch}: the outbound address policy ({@link providerFetch}), and a count of the round
 * trips.
 */
@Injectable()
export class RelyingParty {
  private readonly discovered = new Map<string, { at: number; metadata: Promise<oidc.ServerMetadata> }>();
  private readonly keySets = new Map<string, ReturnType<typeof jose.createRemoteJWKSet>>();
  /** Requests made to providers since start, by URL path; read by tests and the benchmark. */
  readonly calls: string[] = [];
  private readonly outbound: ReturnType<typeof providerFetch>;

  constructor(
    private readonly config: AppConfig,
    @Inject(HOST_RESOLVER) resolveHost: HostResolver,
  ) {
    this.outbound = providerFetch(config.ssoInsecureIssuers, resolveHost);
  }

  /** `http://` is allowed only for the hosts of SSO_INSECURE_ISSUERS. */
  issuerProblem(issuer: string): string | null {
    return issuerProblem(issuer, this.config.ssoInsecureIssuers);
  }

  private readonly countingFetch = (url: string, options: FetchInit) => {
    this.calls.push(new URL(url).pathname);
    return this.outbound(url, options);
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
    // OpenID Connect Core 5.4: the email scope's claims may be served by the UserInfo endpoint only (Okta's
    // authorization-code ID tokens, oidc-provider's defaults); its answer must be about the same `sub` (5.3.2).
    const claims: Record<string, unknown> =
      typeof payload.email === 'string'
        ? payload
        : await this.userInfo(configuration, tokens.access_token, payload.sub!);
    return {
      issuer: client.issuer,
      sub: payload.sub!,
      sid: typeof payload.sid === 'string' ? payload.sid : null,
      email: typeof claims.email === 'string' ? claims.email.toLowerCase() : null,
      // Only `true` is a yes; an absent claim is no answer (Entra ID); anything else is a no.
      emailVerified: claims.email_verified === undefined ? null : claims.email_verified === true,
      name: typeof payload.name === 'string' ? payload.name : typeof claims.name === 'string' ? claims.name : null,
    };
  }

  /** The UserInfo answer about `sub` (openid-client refuses one about another subject). */
  private async userInfo(
    configuration: oidc.Configuration,
    accessToken: string,
    sub: string,
  ): Promise<Record<string, unknown>> {
    try {
      return await oidc.fetchUserInfo(configuration, accessToken, sub);
    } catch (error) {
      if (isUnreachable(error))
        throw new ProviderUnavailable(`the UserInfo endpoint did not answer: ${message(error)}`);
      throw error;
    }
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
        [jose.customFetch]: this.countingFetch,
      });
      this.keySets.set(uri, set);
    }
    return set;
  }
}

/** The error and its causes, for the operator's log (openid-client wraps the network's reason in `cause`). */
function message(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current !== undefined && depth < 5; depth++) {
    parts.push(current instanceof Error ? current.message : String(current));
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join(': ');
}

function isUnreachable(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current = error; current && !seen.has(current); current = (current as { cause?: unknown }).cause) {
    seen.add(current);
    const name = (current as { name?: string; code?: string }).name;
    const code = (current as { code?: string }).code;
    if (current instanceof OutboundRefused) return true;
    if (name === 'TimeoutError' || name === 'AbortError') return true;
    if (code && /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|UND_ERR_)/.test(code)) return true;
    if (current instanceof TypeError && /fetch failed/.test(current.message)) return true;
  }
  return false;
}
