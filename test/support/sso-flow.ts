import { Browser } from './oidc-idp';

export interface Finished {
  browser: Browser;
  /** The callback URL the provider sent the browser to (code and state in its query). */
  callback: URL;
  /** Where the service's callback sent the browser next. */
  location: URL;
  code: string | null;
  error: string | null;
}

/**
 * A sign-in through a company's provider as one browser makes it against the service at `base`: `start` from
 * that browser (it receives the cookie that binds the flow to it), the provider's pages, the callback, and the
 * exchange of the one-time code, each carrying the browser's cookies.
 */
export class SsoFlows {
  constructor(readonly base: string) {}

  async start(browser: Browser, body: Record<string, unknown>): Promise<{ status: number; body: any }> {
    const res = await browser.request(`${this.base}/v1/sso/start`, { json: { return_to: '/admin', ...body } });
    return { status: res.status, body: await res.json() };
  }

  /** Start, the provider's pages (signing in as `login`; null where the provider asks nothing), the callback. */
  async signIn(login: string | null, body: Record<string, unknown>, browser = new Browser()): Promise<Finished> {
    const started = await this.start(browser, body);
    if (started.status !== 200) throw new Error(`start answered ${started.status}: ${JSON.stringify(started.body)}`);
    const callback = await this.toCallback(browser, started.body.authorization_url, login);
    return { browser, callback, ...(await this.finishAt(browser, callback)) };
  }

  /** Through the provider's pages up to the redirect to the service's callback (not requested). */
  toCallback(browser: Browser, authorizationUrl: string, login: string | null): Promise<URL> {
    return browser.run(authorizationUrl, login, (url) => url.pathname === '/v1/sso/callback');
  }

  /** The browser at the callback URL: the service's 303 and the outcome in its fragment. */
  async finishAt(browser: Browser, callback: URL): Promise<Omit<Finished, 'browser' | 'callback'>> {
    const res = await browser.request(callback.toString());
    if (res.status !== 303) throw new Error(`the callback answered ${res.status}: ${await res.text()}`);
    const location = new URL(res.headers.get('location')!, this.base);
    const fragment = new URLSearchParams(location.hash.slice(1));
    return { location, code: fragment.get('sso_code'), error: fragment.get('sso_error') };
  }

  async exchange(browser: Browser, code: string): Promise<{ status: number; body: any; headers: Headers }> {
    const res = await browser.request(`${this.base}/v1/sso/exchange`, { json: { sso_code: code } });
    return { status: res.status, body: await res.json(), headers: res.headers };
  }
}
