import { timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { memberCard } from '../../accounts/membership/member-card';
import { passkeyCountColumn } from '../passkeys/passkey-sql';
import type { Grant } from '../../access/permissions/permission';
import { intersectGrants } from '../../access/permissions/permission';
import type { Principal } from '../../access/rules/principal';
import { sha256Hex } from '../auth/credentials/sha256';
import {
  CredentialKind,
  type CredentialStrategy,
  type LookUpResult,
  NOT_KEPT,
  ownerOf,
} from '../auth/credentials/credential-strategy';

interface ApiKeyRow {
  id: string;
  employee_id: number;
  company_id: number;
  employee_passkeys: number;
  secret_hash: string;
  permissions: Grant[];
  revoked_at: Date | null;
  created_at: Date;
}

const API_KEY_ID = /^[A-Za-z0-9_-]{8,40}$/;

/** The key, with its owner's passkey count; who it acts as is the accounts area's card, read next. */
const LOOK_UP = `SELECT k.id, k.secret_hash, k.employee_id, k.company_id, k.permissions, k.revoked_at, k.created_at,
       ${passkeyCountColumn('k.employee_id')} AS employee_passkeys
  FROM api_key k
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
    if (row.revoked_at) return { status: 'blacklisted', keep: true };
    const card = await memberCard(this.dataSource.manager, row.employee_id, row.company_id);
    if (!card) return { status: 'not_found', keep: true };
    // A removed or suspended owner's key is found and refused as blacklisted rather than unknown.
    if (!card.permissions) return { status: 'blacklisted', keep: true };
    const principal: Principal = {
      kind: 'api_key',
      employeeId: row.employee_id,
      companyId: row.company_id,
      // Never more than the owner holds now (its own permissions and its roles'), whatever the key was given.
      permissions: intersectGrants(row.permissions, card.permissions),
      roles: card.roles,
      sessionId: null,
      credentialId: row.id,
      ...ownerOf(card, row.employee_passkeys),
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
