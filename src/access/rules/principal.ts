import type { Grant } from '../permissions/permission';

/** Who a verified credential acts as: one employee in one company, with that membership's permissions. */
export interface Principal {
  kind: 'jwt' | 'api_key';
  employeeId: number;
  companyId: number;
  /** Effective: the membership's own and its roles' (for an API key, those its owner's cap). */
  permissions: readonly Grant[];
  /** The roles the employee holds in the company (docs/contract.md "Company policies and roles"). */
  roles: readonly { id: number; name: string }[];
  /** The login session of a JWT; `null` for an API key. */
  sessionId: string | null;
  /** The JWT's id (`jti`) or the API key's id. */
  credentialId: string;
  /** Loaded with the credential, so describing the caller costs no query of its own. */
  employee: { id: number; email: string; name: string };
  company: { id: number; name: string };
  /** The account's second factors as they stood when the credential was read (a change evicts it everywhere). */
  mfa: { totp: boolean; passkeys: number };
  /**
   * The company's policy as it stood when the credential was read (a change evicts it on every instance), where
   * anything in it applies to requests; absent for a company on the defaults.
   */
  policy?: CredentialPolicy;
  /**
   * A login token under an idle time-out: when its session was last used (read with the credential, then moved
   * by each request this instance admits). Absent otherwise.
   */
  lastUsedMs?: number;
  /**
   * `mfa_enrollment`: the company requires a second factor and this login token's session proved none; only
   * enrolling one (and logout) is open to it.
   */
  restricted?: 'mfa_enrollment';
}

/** What a request's checks need of the company's policy (docs/contract.md "Company policies and roles"). */
export interface CredentialPolicy {
  /** Whether a client address is inside the company's allowlist; `null`: any address. */
  allows: ((ip: string) => boolean) | null;
  /** The idle time-out of a login session; `null`: none. */
  idleMs: number | null;
  mfaRequired: boolean;
}

/** The outcome of reading a request's credential, decided once per request and shared by every guard. */
export type CredentialVerdict =
  /** `tokenHash`: the first 16 hex characters of the SHA-256 of the header, for the rate-limit counter. */
  | { status: 'valid'; principal: Principal; tokenHash: string }
  | { status: 'missing' }
  | { status: 'query_not_allowed' }
  | { status: 'not_found' }
  | { status: 'blacklisted' }
  | { status: 'expired' };
