import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { Browser } from './oidc-idp';
import type { TestApp } from './test-app';

/**
 * Marks a listed e-mail domain of a company's SSO connection as proven (or no longer proven), as a successful
 * DNS TXT verification would. The verification itself (POST /v1/sso/connection/domains/verify against a real DNS
 * server) is tested with the SSO flow; the tests using this one are about what a proven domain allows.
 */
export async function setDomainProven(t: TestApp, companyId: number, domain: string, proven = true): Promise<void> {
  const rows = await t.app.get(DataSource).query<Array<{ domain: string }>>(
    `WITH changed AS (UPDATE sso_email_domain SET verified_at = $3 WHERE company_id = $1 AND domain = $2
                      RETURNING domain)
     SELECT domain FROM changed`,
    [companyId, domain, proven ? new Date() : null],
  );
  if (rows.length !== 1) throw new Error(`company ${companyId} does not list ${domain}`);
}

/** The base URL of a test app listening on loopback (the browser and the providers need a real port). */
export async function listening(t: TestApp): Promise<string> {
  const server = t.app.getHttpServer();
  if (!server.listening) await t.app.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export interface SsoOutcome {
  status: number;
  code: string | null;
  error: string | null;
  browser: Browser;
}

/**
 * `POST /v1/sso/start`, the provider's pages, and the callback, all in one browser (its cookies included), as a
 * person signing in does. `login` is the account at a provider with a login form (null: one that answers at once).
 */
export async function ssoSignIn(
  base: string,
  start: { company_id: number } | { email: string },
  login: string | null = null,
  browser = new Browser(),
): Promise<SsoOutcome> {
  const started = await browser.request(`${base}/v1/sso/start`, {
    method: 'POST',
    json: { return_to: '/admin', ...start },
  });
  const body = (await started.json()) as { authorization_url?: string };
  if (started.status !== 200 || !body.authorization_url) {
    return { status: started.status, code: null, error: null, browser };
  }
  const callback = await browser.run(body.authorization_url, login, (url) => url.pathname === '/v1/sso/callback');
  const answer = await browser.request(callback.toString());
  const location = new URL(answer.headers.get('location') ?? '/', base);
  const fragment = new URLSearchParams(location.hash.slice(1));
  return { status: answer.status, code: fragment.get('sso_code'), error: fragment.get('sso_error'), browser };
}

/** The one-time code for a session, from the browser that signed in: the login result, or throws. */
export async function ssoExchange(base: string, outcome: SsoOutcome): Promise<{ jwt: string; refresh_token: string }> {
  if (!outcome.code) throw new Error(`no sso_code (sso_error=${outcome.error}, status ${outcome.status})`);
  const res = await outcome.browser.request(`${base}/v1/sso/exchange`, {
    method: 'POST',
    json: { sso_code: outcome.code },
  });
  const body = (await res.json()) as { jwt: string; refresh_token: string };
  if (res.status !== 200) throw new Error(`exchange: ${res.status} ${JSON.stringify(body)}`);
  return body;
}
