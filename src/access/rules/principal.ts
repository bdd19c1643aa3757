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
