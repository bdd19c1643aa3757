import type { Employee } from '../../accounts/employee/employee.entity';
import { toVietnamIso } from './token-lifetime';
import type { LoginSession } from './login-session.entity';
import type { IssuedPair } from './token-issuer.service';

/** The body of a successful login, refresh or company switch (docs/contract.md "Login result"). */
export interface LoginResult {
  jwt: string;
  refresh_token: string;
  expires_at: string;
  session_id: string;
  company: { id: number; name: string };
  employee: { id: number; email: string; name: string };
  /** Present when the session may only enrol a second factor (docs/contract.md "Company policies and roles"). */
  restricted?: 'mfa_enrollment';
}

export function toLoginResult(
  pair: IssuedPair,
  session: Pick<LoginSession, 'id'>,
  company: { id: number; name: string },
  employee: Pick<Employee, 'id' | 'email' | 'name'>,
  restricted = false,
): LoginResult {
  const result: LoginResult = {
    jwt: pair.jwt,
    refresh_token: pair.refreshToken,
    expires_at: toVietnamIso(pair.token.expiresAt),
    session_id: session.id,
    company: { id: company.id, name: company.name },
    employee: { id: employee.id, email: employee.email, name: employee.name },
  };
  if (restricted) result.restricted = 'mfa_enrollment';
  return result;
}
