import type { Clock } from './clock';
import type { components } from '../openapi';

export type LoginResult = components['schemas']['LoginResultDto'];

/** {@link TokenSession.tokenNow}'s answer while a refresh is due or running: wait for {@link TokenSession.ready}. */
export const REFRESH_PENDING = Symbol('refresh pending');

/**
 * The login result a client holds, and its renewal: the token is refreshed `marginMs` before `expires_at` (and,
 * via {@link refresh}, once when the server answers `error_jwt_expired`). A refresh blacklists the token it
 * replaces, so it waits until no request carrying that token is on the wire, and holds new requests until the
 * new token is there: no request is sent with a token the refresh has just ended.
 */
export class TokenSession {
  private current?: LoginResult;
  private expiresAtMs = Infinity;
  /** Set when a refresh was refused: the session is over, requests go out with the last token and get its error. */
  private ended = false;
  private refreshing?: Promise<boolean>;
  private onWire = 0;
  private drained: Array<() => void> = [];
  refreshes = 0;

  constructor(
    private readonly clock: Clock,
    private readonly marginMs: number,
    /** Sends the refresh; the new login result, or undefined when the server refused it. */
    private readonly renew: (refreshToken: string) => Promise<LoginResult | undefined>,
  ) {}

  get result(): LoginResult | undefined {
    return this.current;
  }

  set(result: LoginResult | undefined): void {
    this.current = result;
    this.expiresAtMs = result ? Date.parse(result.expires_at) : Infinity;
    this.ended = false;
  }

  /** The token to send now, none without a login, or {@link REFRESH_PENDING}. */
  tokenNow(): string | undefined | typeof REFRESH_PENDING {
    if (!this.current) return undefined;
    if (this.refreshing || this.due()) return REFRESH_PENDING;
    return this.current.jwt;
  }

  /** Resolves when {@link tokenNow} would give a token (refreshing first if one is due). */
  async ready(signal?: AbortSignal): Promise<void> {
    while (this.tokenNow() === REFRESH_PENDING) await abortable(this.refresh(), signal);
  }

  /** Marks a request carrying the current token as sent; call the returned function when its answer is in. */
  begin(): () => void {
    this.onWire++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.onWire === 0) for (const wake of this.drained.splice(0)) wake();
    };
  }

  /**
   * Renews the token (one refresh at a time, whoever asks); false when there is none to renew or it was refused.
   * Given the token a request was refused with: true at once when a refresh already replaced it.
   */
  refresh(refusedToken?: string): Promise<boolean> {
    if (this.current && refusedToken !== undefined && refusedToken !== this.current.jwt) return Promise.resolve(true);
    if (!this.current || this.ended) return Promise.resolve(false);
    this.refreshing ??= this.renewOnce(this.current).finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async renewOnce(from: LoginResult): Promise<boolean> {
    if (this.onWire > 0) await new Promise<void>((wake) => this.drained.push(wake));
    if (this.current !== from) return true; // a login happened meanwhile
    // A network failure rejects (the requests waiting for it fail with it; the next one tries again); a refusal
    // (expired, session ended or over 30 days) ends the session.
    const renewed = await this.renew(from.refresh_token);
    if (this.current !== from) return true;
    if (!renewed) {
      this.ended = true;
      return false;
    }
    this.refreshes++;
    this.set(renewed);
    return true;
  }

  private due(): boolean {
    return !this.ended && this.clock.now() >= this.expiresAtMs - this.marginMs;
  }
}

function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
