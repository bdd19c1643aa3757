/** The service's HTTP API as the page uses it: same origin, the raw token in `Authorization`, never in a URL. */

export interface Company {
  id: number;
  name: string;
  /** In authenticateinit's list: the company signs its staff in through its identity provider only. */
  sso?: boolean;
}

export interface Employee {
  id: number;
  email: string;
  name: string;
}

/** The login result of docs/contract.md, kept as is in storage under `state.account`. */
export interface Account {
  jwt: string;
  refresh_token: string;
  expires_at: string;
  session_id: string;
  company: Company;
  employee: Employee;
  /** The company requires a second factor this login did not prove: the session may only enrol one. */
  restricted?: 'mfa_enrollment';
}

/** A role a member holds, as listed with the member. */
export interface RoleRef {
  id: number;
  name: string;
}

/** GET /v1/roles: one of the company's named permission sets. */
export interface Role extends RoleRef {
  permissions: string[];
  /** How many members hold it. */
  holders: number;
  created_at: string;
  updated_at: string;
}

/** GET and PUT /v1/company/policy. */
export interface CompanyPolicy {
  mfa_required: boolean;
  session_days: number;
  idle_timeout_minutes: number | null;
  ip_allowlist: string[];
}

export interface Me {
  employee: Employee;
  company: Company;
  permissions: string[];
  credential: 'jwt' | 'api_key';
  session_id: string | null;
  roles?: RoleRef[];
  restricted?: 'mfa_enrollment';
}

export interface Session {
  id: string;
  created_at: string;
  last_used_at: string | null;
  method: 'password' | 'sso' | 'passkey';
  ip: string | null;
  user_agent: string | null;
  current: boolean;
}

export interface ApiKey {
  id: string;
  name: string;
  /** The part of the key before `:` (not secret). */
  prefix: string;
  owner: { id: number; email: string };
  permissions: string[];
  created_at: string;
  last_used_at: string | null;
}

/** GET /v1/ratelimits/company: the Limits screen's one read. */
export interface CompanyRateLimits {
  limits: Array<{
    method: string;
    group: string;
    capacity: number;
    effective_capacity: number;
    period_seconds: number;
  }>;
  overrides: Array<{
    id: number;
    api_key_id: string | null;
    method: string;
    group: string;
    limit: number;
    mode: 'enforce' | 'shadow';
    expires_at: string | null;
  }>;
  quotas: Array<{ id: number; api_key_id: string | null; per: 'hour' | 'day'; limit: number }>;
  limited: Array<{
    kind: 'jwt' | 'api_key';
    credential_id: string;
    employee: { id: number; email: string };
    method: string;
    group: string;
    refused: number;
    shadow_limited: number;
    first_at: string;
    last_at: string;
  }>;
  window_seconds: number;
}

export interface CompanyEmployee extends Employee {
  /** Effective: the member's own and its roles'. */
  permissions: string[];
  roles?: RoleRef[];
}

/** One field's problem in a 400 `error_validation` answer (`ip_allowlist[2]`, `session_days`). */
export interface FieldError {
  field: string;
  message: string;
}

/** An answer other than 2xx, with the service's error code and the wait a 429 asks for. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds from `Retry-After`, on a 429. */
    readonly retryAfter: number | null,
    /** A 429 in the object form: a per-account limit (failed logins, company switches), not the request rate. */
    readonly perAccount: boolean,
    /** A 400's `details`: one entry per field that failed. */
    readonly details: FieldError[] = [],
  ) {
    super(message);
  }
}

/** The answers that mean the page's token can no longer be used. */
export const SESSION_ENDING_CODES = new Set([
  'error_jwt_blacklisted',
  'error_jwt_expired',
  'error_jwt_hash_not_found',
  'error_session_max_age',
  'error_refresh_token_invalid',
]);

async function toError(response: Response): Promise<ApiError> {
  const retry = Number(response.headers.get('retry-after'));
  const retryAfter = Number.isFinite(retry) && retry > 0 ? retry : null;
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // A body that is not JSON (a proxy's page): the status alone speaks.
  }
  if (Array.isArray(body)) {
    return new ApiError(response.status, String(body[0] ?? 'error_unknown'), '', retryAfter, false);
  }
  const object = (body ?? {}) as {
    error?: unknown;
    message?: unknown;
    details?: Array<{ field?: unknown; message?: unknown }>;
  };
  const code = Array.isArray(object.error) ? String(object.error[0]) : `http_${response.status}`;
  const fields = (Array.isArray(object.details) ? object.details : [])
    .filter((d) => typeof d?.message === 'string' && d.message !== '')
    .map((d) => ({ field: typeof d.field === 'string' ? d.field : '', message: d.message as string }));
  const head = typeof object.message === 'string' ? object.message : '';
  const message = [head, ...fields.map((d) => d.message)].filter(Boolean).join(' ');
  return new ApiError(response.status, code, message, retryAfter, response.status === 429, fields);
}

/**
 * `withCookies`: send and keep this origin's cookies, which only single sign-on uses (its start sets the cookie
 * that binds the sign-in to this browser, and the exchange of its code must carry it); every other call omits
 * them, its credential being the token in `Authorization`.
 */
export async function request<T>(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; withCookies?: boolean } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token) headers.authorization = options.token;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: options.withCookies ? 'same-origin' : 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(
      0,
      'error_network',
      'The service cannot be reached. Check your connection and try again.',
      null,
      false,
    );
  }
  if (!response.ok) throw await toError(response);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** Seconds as people say them: "45 seconds", "3 minutes", "14 minutes 10 seconds". */
export function formatWait(seconds: number): string {
  const s = Math.max(1, Math.ceil(seconds));
  if (s < 60) return `${s} second${s === 1 ? '' : 's'}`;
  const minutes = Math.floor(s / 60);
  const rest = s % 60;
  const m = `${minutes} minute${minutes === 1 ? '' : 's'}`;
  return rest === 0 ? m : `${m} ${rest} second${rest === 1 ? '' : 's'}`;
}

/** One sentence for an error shown next to the form or list that caused it. */
export function describeError(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Something went wrong. Try again.';
  if (error.status === 429) {
    const wait = error.retryAfter ? ` Try again in ${formatWait(error.retryAfter)}.` : ' Wait a moment and try again.';
    // The service's own sentence ends "try again later"; the page knows how much later.
    const reason = (error.message || 'Too many attempts.').replace(/[;,]?\s*try again later\.?$/i, '.');
    return error.perAccount ? `${reason}${wait}` : `Too many requests.${wait}`;
  }
  if (error.code === 'error_permission_denied') return error.message || 'You do not have permission to do that.';
  return error.message || `The service answered ${error.status} (${error.code}).`;
}
