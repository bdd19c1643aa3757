import type { EntityManager } from 'typeorm';
import { type Grant, intersectGrants } from '../../access/permissions/permission';
import { connectionOf } from '../../identity/sso/sso-connections';
import { jitGrantNow } from '../../identity/sso/sso-provisioning';

/**
 * The permissions a member created by SCIM starts with in `companyId`: what the company's SSO connection's JIT
 * gives now (docs/contract.md: "none without a connection"; capped by the connection's last editor), never more
 * than the SCIM token itself holds (`tokenHolds`), read inside the caller's transaction. The connection's JIT
 * switch governs sign-in, not provisioning: a SCIM client creating a member is the provisioning.
 */
export async function provisioningPermissionsFor(
  manager: EntityManager,
  companyId: number,
  tokenHolds: readonly Grant[],
): Promise<Grant[]> {
  const connection = await connectionOf(manager, companyId);
  return connection === null ? [] : intersectGrants(await jitGrantNow(manager, connection), tokenHolds);
}
