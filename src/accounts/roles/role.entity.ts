import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import type { Grant } from '../../access/permissions/permission';

/**
 * A named set of permissions of one company (docs/contract.md "Company policies and roles"). A member holding it
 * holds its permissions in that company, beside the member's own. A group a SCIM directory pushes is a role with
 * none until an administrator grants some.
 */
@Entity({ name: 'role' })
export class Role {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'company_id', type: 'integer' })
  companyId: number;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', array: true })
  permissions: Grant[];

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/**
 * Which member holds which role. The migration's foreign keys tie a holder to a membership and a role of the
 * same company: a role of another company cannot be held, even by a statement that forgot to check.
 */
@Entity({ name: 'member_role' })
export class MemberRole {
  @PrimaryColumn({ name: 'employee_id', type: 'integer' })
  employeeId: number;

  @PrimaryColumn({ name: 'company_id', type: 'integer' })
  companyId: number;

  @PrimaryColumn({ name: 'role_id', type: 'integer' })
  roleId: number;
}
