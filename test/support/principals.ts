import type { Principal } from '../../src/access/rules/principal';

/** A verified JWT principal for unit specs that need one and care only that it is one. */
export const JWT_PRINCIPAL: Principal = {
  kind: 'jwt',
  employeeId: 7,
  companyId: 1,
  permissions: [],
  roles: [],
  sessionId: 'session-1',
  credentialId: 'token-1',
  employee: { id: 7, email: 'a@example.test', name: 'A' },
  company: { id: 1, name: 'Alpha' },
  mfa: { totp: false, passkeys: 0 },
};
