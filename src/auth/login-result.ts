import type { Company } from '../company/company.entity';
import type { Employee } from '../employee/employee.entity';
import type { LoginSession } from '../sessions/login-session.entity';
import type { IssuedPair } from './tokens/token-issuer.service';
import { toVietnamIso } from './tokens/token-lifetime';

/** The body of a successful login, refresh or company switch (contract.md "Login result"). */
export interface LoginResult {
  jwt: string;
  refresh_token: string;
  expires_at: string;
  session_id: string;
  company: { id: number; name: string };
  employee: { id: number; email: string; name: string };
}

export function toLoginResult(
  pair: IssuedPair,
  session: LoginSession,
  company: Company,
  employee: Pick<Employee, 'id' | 'email' | 'name'>,
): LoginResult {
  return {
    jwt: pair.jwt,
    refresh_token: pair.refreshToken,
    expires_at: toVietnamIso(pair.token.expiresAt),
    session_id: session.id,
    company: { id: company.id, name: company.name },
    employee: { id: employee.id, email: employee.email, name: employee.name },
  };
}
