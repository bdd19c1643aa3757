import { create } from 'zustand';
import { persist, type PersistStorage, type StorageValue } from 'zustand/middleware';
import { type Account, ApiError, describeError, request, SESSION_ENDING_CODES } from './api';
import { askStepUp } from './step-up';

/** The storage key of source §5.6: staff copy `state.account.jwt` from here. */
export const STORAGE_KEY = 'MAIN::LoginAccount';

/** Renew this long before the token expires, so a page left open never sends an expired token. */
export const REFRESH_MARGIN_MS = 10 * 60 * 1000;

interface LoginState {
  account: Account | null;
  /** Why the login screen is shown (logged out, session ended...); never persisted. */
  notice: { text: string; tone: 'info' | 'warning' } | null;
  setAccount(account: Account): void;
  clearNotice(): void;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';
const isId = (value: unknown) => Number.isSafeInteger(value) && (value as number) > 0;

/** A login result as the service answers it; anything else in storage is not a login this page can use. */
export function isAccount(value: unknown): value is Account {
  if (!isObject(value) || !isObject(value.company) || !isObject(value.employee)) return false;
  return (
    isText(value.jwt) &&
    isText(value.refresh_token) &&
    isText(value.session_id) &&
    isText(value.expires_at) &&
    !Number.isNaN(Date.parse(value.expires_at)) &&
    isId(value.company.id) &&
    typeof value.company.name === 'string' &&
    isId(value.employee.id) &&
    typeof value.employee.email === 'string' &&
    typeof value.employee.name === 'string'
  );
}

type Stored = StorageValue<{ account: Account | null }>;

/**
 * localStorage, read defensively (docs/contract.md): a stored login the page cannot read — not JSON, another shape, a
 * half-written value — counts as logged out and is removed, so the page shows the login screen, never a blank one.
 */
const storage: PersistStorage<{ account: Account | null }> = {
  getItem(name) {
    let raw: string | null;
    try {
      raw = localStorage.getItem(name);
    } catch {
      return null;
    }
    if (raw === null) return null;
    try {
      const stored = JSON.parse(raw) as unknown;
      if (
        isObject(stored) &&
        stored.version === 0 &&
        isObject(stored.state) &&
        (stored.state.account === null || isAccount(stored.state.account))
      ) {
        return stored as Stored;
      }
    } catch {
      // Not JSON: removed below like any other unreadable value.
    }
    localStorage.removeItem(name);
    return null;
  },
  setItem: (name, value) => localStorage.setItem(name, JSON.stringify(value)),
  removeItem: (name) => localStorage.removeItem(name),
};

/**
 * zustand's persist middleware writes exactly `{"state": {"account": {...}}, "version": 0}`, the shape docs/contract.md
 * fixes for `MAIN::LoginAccount`; `partialize` keeps the notice out of it.
 */
export const useLogin = create<LoginState>()(
  persist(
    (set) => ({
      account: null,
      notice: null,
      setAccount: (account) => set({ account, notice: null }),
      clearNotice: () => set({ notice: null }),
    }),
    {
      name: STORAGE_KEY,
      version: 0,
      storage,
      partialize: (state) => ({ account: state.account }),
    },
  ),
);

const ENDED: Record<string, string> = {
  error_jwt_blacklisted:
    'Your session has ended: it was logged out, revoked or switched to another company elsewhere. Log in again.',
  error_jwt_expired: 'Your login has expired. Log in again.',
  error_session_max_age: 'Your session is more than 30 days old, the longest a session may last. Log in again.',
  error_refresh_token_invalid: 'Your login could not be renewed. Log in again.',
  error_jwt_hash_not_found: 'The service no longer recognises your login. Log in again.',
};

/** Back to the login screen: nothing of the login stays in storage. */
export function endSession(text: string, tone: 'info' | 'warning' = 'warning'): void {
  useLogin.setState({ account: null, notice: { text, tone } });
  useLogin.persist.clearStorage();
}

function endIfSessionGone(error: unknown): void {
  if (error instanceof ApiError && SESSION_ENDING_CODES.has(error.code) && useLogin.getState().account) {
    endSession(ENDED[error.code] ?? 'Your session has ended. Log in again.');
  }
  // The company began requiring a second factor while this login was open: it stays restricted until the next.
  const account = useLogin.getState().account;
  if (error instanceof ApiError && error.code === 'error_mfa_enrollment_required' && account && !account.restricted) {
    useLogin.setState({ account: { ...account, restricted: 'mfa_enrollment' } });
  }
}

/** A request with the page's token; an answer saying the token is dead returns the page to the login. */
export async function authed<T>(method: string, path: string, body?: unknown): Promise<T> {
  const token = useLogin.getState().account?.jwt;
  if (!token) throw new ApiError(401, 'error_jwt_is_required', 'You are not logged in.', null, false);
  try {
    return await request<T>(method, path, { token, body });
  } catch (error) {
    endIfSessionGone(error);
    if (!(error instanceof ApiError) || error.code !== 'error_reauthentication_required') throw error;
  }
  // A step-up action (docs/contract.md): the prompt proves the person again, then the action goes on by itself.
  await askStepUp();
  return authed<T>(method, path, body);
}

let refreshing: Promise<void> | null = null;

/**
 * A token whose refresh did not move its expiry (the session's 30-day end caps it, or the service's day has not
 * turned): renewing it again would only loop, so the page keeps it until it expires.
 */
let lastRenewable: string | null = null;

export function isRenewable(account: Account): boolean {
  return lastRenewable !== account.jwt;
}

/** Rotates the token and refresh token; one refresh at a time, since a refresh token works once. */
export function refreshNow(): Promise<void> {
  refreshing ??= (async () => {
    const account = useLogin.getState().account;
    if (!account) return;
    try {
      const renewed = await request<Account>('POST', '/v1/users/refreshtoken', {
        body: { refresh_token: account.refresh_token },
      });
      if (Date.parse(renewed.expires_at) <= Date.parse(account.expires_at)) lastRenewable = renewed.jwt;
      // Another tab may have logged out meanwhile; do not bring the login back.
      if (useLogin.getState().account) useLogin.getState().setAccount(renewed);
    } catch (error) {
      // A network error or a rate limit leaves the token as is; the next timer or request tries again.
      endIfSessionGone(error);
    }
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/** Milliseconds until the token should be renewed (0: now). */
export function refreshDelay(account: Account, now = Date.now()): number {
  return Math.max(0, Date.parse(account.expires_at) - REFRESH_MARGIN_MS - now);
}

/**
 * "Logged out" only once the service confirmed it (docs/contract.md): its 204, or an answer saying the session had
 * already ended. Any other failure (no network, a rate limit, a 5xx) keeps the login, which still works, and
 * says the logout failed, so nobody walks away from a shared computer believing they logged out.
 */
export async function logOut(): Promise<boolean> {
  const token = useLogin.getState().account?.jwt;
  if (token) {
    try {
      await request('POST', '/v1/users/logout', { token });
    } catch (error) {
      if (!(error instanceof ApiError && SESSION_ENDING_CODES.has(error.code))) {
        useLogin.setState({
          notice: { text: `Logging out failed: ${describeError(error)} You are still logged in.`, tone: 'warning' },
        });
        return false;
      }
    }
  }
  endSession('You are logged out.', 'info');
  return true;
}

/** Another tab logged in, renewed, switched or logged out: follow it instead of holding a dead token. */
export function followOtherTabs(): () => void {
  const onStorage = (event: StorageEvent) => {
    if (event.key !== STORAGE_KEY) return;
    if (event.newValue === null) {
      if (useLogin.getState().account) endSession('You logged out in another tab.', 'info');
      return;
    }
    void useLogin.persist.rehydrate();
  };
  window.addEventListener('storage', onStorage);
  return () => window.removeEventListener('storage', onStorage);
}
