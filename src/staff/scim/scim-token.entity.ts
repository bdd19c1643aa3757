import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Grant } from '../../access/permissions/permission';

/**
 * A bearer token an identity provider provisions one company's staff with (SCIM 2.0). Only the SHA-256 of the
 * token is kept: it is shown once, when created.
 */
@Entity({ name: 'scim_token' })
export class ScimToken {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'company_id', type: 'integer' })
  companyId: number;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'token_hash', type: 'char', length: 64, select: false })
  tokenHash: string;

  @Column({ name: 'created_by', type: 'integer', nullable: true })
  createdBy: number | null;

  /** What the creator held when it was made; a request gets no more than the creator also holds then. */
  @Column({ type: 'text', array: true })
  permissions: Grant[];

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;
}
