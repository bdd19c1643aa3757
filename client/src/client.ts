import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from '../openapi';
import { type Clock, systemClock } from './clock';
import { RouteGroups } from './route-group';
import { RateLimitScheduler } from './scheduler';
import { type LoginResult, TokenSession } from './token-session';
import { type ClientStats, type RetryBudget, scheduledFetch } from './transport';

type Company = components['schemas']['CompanyRefDto'];

export interface StaffAuthClientOptions {
  /** Where the service answers, e.g. `https://api.example.com`. */
  baseUrl: string;
  /** How long a request may keep retrying 429s; unlimited by default, so a caller never sees a 429. */
  retry?: RetryBudget;
  /**
   * Requests of one credential in flight at once until the service announces its `CONCURRENCY_LIMIT` (in its first
   * refusal by that cap; from then on the announced one holds). Default 20, the service's default.
   */
  concurrency?: number;
  /** Refresh the token this long before its `expires_at` (default 60 s). */
  refreshMarginMs?: number;
  /** The transport underneath (default: the global fetch). */
  fetch?: (request: Request) => Promise<Response>;
  /** Time (default: the system clock); tests pass one they move by hand. */
  clock?: Clock;
}

export interface LoginOptions {
  email: string;
  password: string;
  /** Which of the account's companies to log in to (default: the first authenticateinit lists). */
  company?: number | ((companies: Company[]) => Company);
  /** Asked only when the account has TOTP on: the current code (or give `recoveryCode`). */
  otp?: () => string | Promise<string>;
  recoveryCode?: string;
}

/** A refused login step, with the server's answer. */
export class LoginError extends Error {
  constructor(
    readonly step: 'authenticateinit' | 'authenticatefinish',
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`${step} answered ${status}: ${JSON.stringify(body)}`);
  }
}

export interface StaffAuthClient {
  /** The typed client of every operation in the OpenAPI document, authenticated and rate-limit aware. */
  readonly api: Client<paths>;
  /** Logs in (authenticateinit, then authenticatefinish with the chosen company and, if asked, a TOTP code). */
  login(options: LoginOptions): Promise<LoginResult>;
  /** Ends the session on the server (its tokens are blacklisted) and forgets it. */
  logout(): Promise<void>;
  /** The current login result (its `jwt` changes at each refresh), if logged in. */
  readonly session: LoginResult | undefined;
  /** Refreshes done so far, and what the transport absorbed. */
  readonly stats: Readonly<ClientStats & { refreshes: number }>;
}

export function createStaffAuthClient(options: StaffAuthClientOptions): StaffAuthClient {
  const clock = options.clock ?? systemClock;
  const stats: ClientStats = { sent: 0, rateLimited: 0 };
  const session = new TokenSession(clock, options.refreshMarginMs ?? 60_000, async (refresh_token) => {
    const { data } = await api.POST('/v1/users/refreshtoken', { body: { refresh_token } });
    return data;
  });
  const transport = scheduledFetch({
    clock,
    scheduler: new RateLimitScheduler(clock, options.concurrency),
    groups: new RouteGroups(),
    session,
    fetch: options.fetch ?? ((request) => globalThis.fetch(request)),
    budget: options.retry ?? {},
    stats,
  });
  const api = createClient<paths>({ baseUrl: options.baseUrl, fetch: transport });

  return {
    api,
    get session() {
      return session.result;
    },
    get stats() {
      return { ...stats, refreshes: session.refreshes };
    },
    async login(login) {
      const { email, password } = login;
      const init = await api.POST('/v1/users/authenticateinit', { body: { email, password } });
      if (!init.data) throw new LoginError('authenticateinit', init.response.status, init.error);
      const companyId =
        typeof login.company === 'number'
          ? login.company
          : (login.company?.(init.data.companies) ?? init.data.companies[0])?.id;
      const secondFactor = !init.data.otp_required
        ? {}
        : login.recoveryCode
          ? { recovery_code: login.recoveryCode }
          : { otp: login.otp ? await login.otp() : undefined };
      const finish = await api.POST('/v1/users/authenticatefinish', {
        body: { email, password, company_id: companyId ?? 0, ...secondFactor },
      });
      if (!finish.data) throw new LoginError('authenticatefinish', finish.response.status, finish.error);
      session.set(finish.data);
      return finish.data;
    },
    async logout() {
      if (!session.result) return;
      const { response } = await api.POST('/v1/users/logout');
      // Already ended on the server (blacklisted, expired): forgetting it is all that is left to do.
      if (!response.ok && response.status !== 400) throw new Error(`logout answered ${response.status}`);
      session.set(undefined);
    },
  };
}
