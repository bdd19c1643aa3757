import type { Principal } from '../../../access/rules/principal';
import type { RevocationNotice } from '../../../platform/revocation/revocation-bus';

/**
 * Which cached credentials a notice makes stale; `null` for the notices that travel on the same bus and change
 * no credential (rate-limit overrides, event streams).
 */
export function evictedBy(notice: RevocationNotice): ((principal: Principal) => boolean) | null {
  switch (notice.type) {
    case 'session':
      return (p) => p.sessionId === notice.sessionId;
    case 'token':
      return (p) => p.kind === 'jwt' && p.credentialId === notice.tokenId;
    case 'api_key':
      return (p) => p.kind === 'api_key' && p.credentialId === notice.keyId;
    case 'membership':
      return (p) => p.employeeId === notice.employeeId && p.companyId === notice.companyId;
    case 'employee':
      return (p) => p.employeeId === notice.employeeId;
    // Every credential of the company carries the policy it was read with, and its holders' roles' permissions.
    case 'company_policy':
    case 'roles':
      return (p) => p.companyId === notice.companyId;
    default:
      return null;
  }
}
