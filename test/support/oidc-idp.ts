import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import * as jose from 'jose';
import Provider from 'oidc-provider';

// oidc-provider's own development notices (in-memory adapter, devInteractions, default TTLs) say what a test
// provider knowingly is; they would bury the test output.
for (const level of ['warn', 'info'] as const) {
  const original = console[level].bind(console);
  console[level] = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].startsWith('oidc-provider ')) return;
    original(...args);
  };
}

export interface IdpAccount {
  email: string;
  /**
   * What the provider says of the e-mail, as real ones do: `true` (Google, Okta, Keycloak for a checked address),
   * `false` (an address nobody checked), or `null`: no `email_verified` claim at all (Microsoft Entra ID's work
   * accounts).
   */
  emailVerified: boolean | null;
  name?: string;
}

export interface IdpOptions {
  /**
   * Where the provider puts the e-mail claims. `userinfo`, oidc-provider's default (`conformIdTokenClaims`), as
   * OpenID Connect Core 5.4 allows and Okta's authorization-code ID tokens do: the ID token carries `sub` only and
   * the service must ask the UserInfo endpoint. `id_token`: in the ID token itself, as Entra ID and Google do.
   */
  claimsIn?: 'userinfo' | 'id_token';
  /** Serve https with this certificate (a private CA's): the issuer is `https://localhost:<port>`. */
  tls?: { key: Buffer; cert: Buffer };
}

/**
 * panva's oidc-provider on a loopback port: the company's identity provider, with its own login and consent
 * pages (devInteractions), a confidential client with back-channel logout, and counters of the requests the
 * service (not the browser) makes: discovery, token, UserInfo and JWKS.
 */
export class RealIdp {
  server?: Server;
  provider?: InstanceType<typeof Provider>;
  readonly hits: string[] = [];
  readonly accounts = new Map<string, IdpAccount>();
  private keys: jose.JWK[] = [];

  constructor(
    readonly port: number,
    readonly client: { id: string; secret: string; redirectUris: string[]; backchannelLogoutUri: string },
    readonly options: IdpOptions = {},
  ) {}

  get issuer(): string {
    return this.options.tls ? `https://localhost:${this.port}` : `http://127.0.0.1:${this.port}`;
  }

  static async freePort(): Promise<number> {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    return port;
  }

  /** A new signing key (the provider rotating its key): the next tokens carry another `kid`. */
  async rotateKey(): Promise<string> {
    const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
    const jwk = { ...(await jose.exportJWK(privateKey)), alg: 'RS256', use: 'sig' };
    jwk.kid = await jose.calculateJwkThumbprint(jwk);
    this.keys = [jwk];
    if (this.server) {
      await this.stop();
      await this.start();
    }
    return jwk.kid;
  }

  async start(): Promise<void> {
    if (this.keys.length === 0) await this.rotateKey();
    const accounts = this.accounts;
    this.provider = new Provider(this.issuer, {
      clients: [
        {
          client_id: this.client.id,
          client_secret: this.client.secret,
          redirect_uris: this.client.redirectUris,
          grant_types: ['authorization_code'],
          response_types: ['code'],
          backchannel_logout_uri: this.client.backchannelLogoutUri,
          backchannel_logout_session_required: true,
        },
      ],
      jwks: { keys: this.keys },
      cookies: { keys: ['test-cookie-key-0123456789'] },
      features: { devInteractions: { enabled: true }, backchannelLogout: { enabled: true } },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      conformIdTokenClaims: (this.options.claimsIn ?? 'userinfo') === 'userinfo',
      pkce: { required: () => true },
      findAccount: (_ctx: unknown, id: string) => {
        const account = accounts.get(id);
        if (!account) return undefined;
        return {
          accountId: id,
          claims: () => ({
            sub: id,
            email: account.email,
            ...(account.emailVerified === null ? {} : { email_verified: account.emailVerified }),
            name: account.name ?? id,
          }),
        };
      },
    });
    const callback = this.provider.callback();
    const handle = (request: IncomingMessage, response: ServerResponse) => {
      const path = new URL(request.url ?? '/', this.issuer).pathname;
      if (/^\/(\.well-known\/openid-configuration|token|me|jwks)$/.test(path)) this.hits.push(path);
      callback(request, response);
    };
    this.server = this.options.tls ? createHttpsServer(this.options.tls, handle) : createServer(handle);
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/**
 * A browser reduced to what these flows need: cookies per host, redirects followed, HTML forms submitted. `ca`:
 * the private CA it trusts for https hosts (as a browser of the company's machines would).
 */
export class Browser {
  private readonly jars = new Map<string, Map<string, string>>();
  /** Rewrites a URL before it is requested (a load balancer sending the callback to another instance). */
  route: (url: URL) => URL = (url) => url;

  constructor(private readonly ca?: Buffer) {}

  /** The cookies this browser holds for a host (`127.0.0.1:3000`). */
  cookies(host: string): Map<string, string> {
    return this.jars.get(host) ?? new Map();
  }

  async request(
    url: string,
    init: { method?: string; form?: Record<string, string>; json?: unknown } = {},
  ): Promise<Response> {
    // Cookies belong to the host the browser addressed, whichever server the route (a load balancer) picks.
    const addressed = new URL(url);
    const target = this.route(addressed);
    const jar = this.jars.get(addressed.host) ?? new Map<string, string>();
    this.jars.set(addressed.host, jar);
    const headers: Record<string, string> = {};
    if (jar.size > 0) headers.cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    } else if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    const method = init.method ?? (body ? 'POST' : 'GET');
    const response =
      target.protocol === 'https:' && this.ca
        ? await requestTrusting(this.ca, target, { method, headers, body })
        : await fetch(target, { method, headers, body, redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(cookie) || value === '') jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  }

  /**
   * Follows redirects from `url`, submitting the provider's forms (login with `login`, then consent) on the way,
   * until a redirect leaves for a URL `stop` accepts: answers that URL (not fetched).
   */
  async run(url: string, login: string | null, stop: (url: URL) => boolean): Promise<URL> {
    let next = new URL(url);
    let form: Record<string, string> | undefined;
    let method = 'GET';
    for (let step = 0; step < 20; step++) {
      if (stop(next)) return next;
      const response = await this.request(next.toString(), { method, form });
      form = undefined;
      method = 'GET';
      if (response.status >= 300 && response.status < 400) {
        next = new URL(response.headers.get('location')!, next);
        continue;
      }
      const html = await response.text();
      if (response.status !== 200) throw new Error(`${next} answered ${response.status}: ${html.slice(0, 300)}`);
      const submitted = formOf(html, next, login);
      if (!submitted) throw new Error(`no form to submit at ${next}: ${html.slice(0, 300)}`);
      next = submitted.action;
      form = submitted.fields;
      method = 'POST';
    }
    throw new Error('too many steps');
  }
}

/** One https request trusting `ca` (Node's fetch takes no CA of its own), answered as a fetch Response. */
function requestTrusting(
  ca: Buffer,
  url: URL,
  init: { method: string; headers: Record<string, string>; body?: string },
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(url, { method: init.method, headers: init.headers, ca }, (answer) => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(answer.headers)) {
        for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
      }
      const status = answer.statusCode ?? 0;
      const empty = status === 204 || status === 304;
      if (empty) answer.resume();
      resolve(new Response(empty ? null : (Readable.toWeb(answer) as ReadableStream), { status, headers }));
    });
    request.once('error', reject);
    request.end(init.body);
  });
}

/** The first form of a page, its hidden fields and, for a login form, `login` and `password` filled in. */
export function formOf(
  html: string,
  base: URL,
  login: string | null,
): { action: URL; fields: Record<string, string> } | null {
  const match = /<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!match) return null;
  const fields: Record<string, string> = {};
  for (const input of match[2].matchAll(/<input[^>]*>/gi)) {
    const name = /name="([^"]*)"/.exec(input[0])?.[1];
    if (!name) continue;
    fields[name] = /value="([^"]*)"/.exec(input[0])?.[1] ?? '';
  }
  // The provider's logout page submits its form with a button outside it: "yes, sign me out everywhere".
  if (/name="logout"/.test(html)) fields.logout = 'yes';
  if ('login' in fields) {
    if (login === null) throw new Error('the provider asks for a login');
    fields.login = login;
    fields.password = 'any-password';
  }
  return { action: new URL(match[1].replace(/&amp;/g, '&'), base), fields };
}
