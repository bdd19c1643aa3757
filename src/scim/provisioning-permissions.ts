import type { EntityManager } from 'typeorm';
import type { Grant } from '../permissions/permission';
import { connectionOf } from '../sso/sso-connections';

/**
 * The permissions a member created by SCIM starts with in `companyId`: the company's SSO connection's JIT
 * permissions (docs/contract.md: "none without a connection"), read inside the caller's transaction. The
 * connection's JIT switch governs sign-in, not provisioning: a SCIM client creating a member is the provisioning.
 */
export async function provisioningPermissionsFor(manager: EntityManager, companyId: number): Promise<Grant[]> {
  const connection = await connectionOf(manager, companyId);
  return connection === null ? [] : [...connection.jit.permissions];
}
