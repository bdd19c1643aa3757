import { passkeyCountColumn } from '../passkeys/passkey-records';
import { timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { companyJoin } from '../../accounts/company/company-sql';
import { employeeJoin } from '../../accounts/employee/employee-sql';
import { membershipJoin } from '../../accounts/membership/membership-sql';
import { effectivePermissionsColumn, memberRolesColumn, parseRoleRefs } from '../../accounts/roles/role-sql';
import type { Grant } from '../../access/permissions/permission';
import { intersectGrants } from '../../access/permissions/permission';
import type { Principal } from '../../access/rules/principal';
import { sha256Hex } from '../auth/credentials/sha256';
import {
  CredentialKind,
  type CredentialStrategy,
  type LookUpResult,
  NOT_KEPT,
  OWNER_COLUMNS,
  type OwnerColumns,
  ownerOf,
} from '../auth/credentials/credential-strategy';

interface ApiKeyRow extends OwnerColumns {
  id: string;
  secret_hash: string;
  permissions: Grant[];
  revoked_at: Date | null;
  created_at: Date;
  owner_permissions: Grant[] | null;
  owner_roles: unknown;
}

const API_KEY_ID = /^[A-Za-z0-9_-]{8,40}$/;

/** The key and who it acts as, in one statement; a LEFT JOIN on membership finds a removed member's key. */
const LOOK_UP = `SELECT k.id, k.secret_hash, k.employee_id, k.company_id, k.permissions, k.revoked_at, k.created_at,
       ${effectivePermissionsColumn('m')} AS owner_permissions, ${memberRolesColumn('m')} AS owner_roles,
       ${OWNER_COLUMNS}, ${passkeyCountColumn('e.id')} AS employee_passkeys
  FROM api_key k
  ${employeeJoin('e', 'k.employee_id')}
  ${companyJoin('c', 'k.company_id')}
  ${membershipJoin('m', 'k.employee_id', 'k.company_id', 'LEFT JOIN')}
 WHERE k.key_id = $1`;

/**
 * API keys `key:secret`: the key id names the row, the secret's digest must match it. It lives with the keys,
 * whose table it reads, and is found at start by its mark (auth's CredentialStrategies).
 */
@CredentialKind('api_key')
@Injectable()
export class ApiKeyStrategy implements CredentialStrategy {
  constructor(private readonly dataSource: DataSource) {}

  accepts(header: string): boolean {
    return header.includes(':');
  }

  /** A key id and secret are random: only the database can tell a real one from an invented one. */
  vouchesFor(): boolean {
    return false;
  }

  async lookUp(header: string): Promise<LookUpResult> {
    const separator = header.indexOf(':');
    const keyId = header.slice(0, separator);
    const secretDigest = Buffer.from(sha256Hex(header.slice(separator + 1)), 'hex');
    if (!API_KEY_ID.test(keyId)) return NOT_KEPT;

    const rows: ApiKeyRow[] = await this.dataSource.query(LOOK_UP, [keyId]);
    const row = rows[0];
    // Compare digests in constant time, against a stand-in when the key id is unknown, so timing says nothing.
    const stored = Buffer.from(row?.secret_hash ?? '0'.repeat(64), 'hex');
    if (!timingSafeEqual(stored, secretDigest) || !row) return { status: 'not_found', keep: true };
    if (row.revoked_at || !row.owner_permissions) return { status: 'blacklisted', keep: true };
    const principal: Principal = {
      kind: 'api_key',
      employeeId: row.employee_id,
      companyId: row.company_id,
      // Never more than the owner holds now (its own permissions and its roles'), whatever the key was given.
      permissions: intersectGrants(row.permissions, row.owner_permissions),
      roles: parseRoleRefs(row.owner_roles),
      sessionId: null,
      credentialId: row.id,
      ...ownerOf(row),
    };
    return {
      status: 'valid',
      principal,
      issuedAtMs: new Date(row.created_at).getTime(),
      expiresAtMs: Number.POSITIVE_INFINITY,
    };
  }

  recordUse(keyId: string, at: Date): Promise<unknown> {
    return this.dataSource.query('UPDATE api_key SET last_used_at = $1 WHERE id = $2', [at, keyId]);
  }
}
