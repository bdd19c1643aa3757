import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Company } from '../company/company.entity';
import { Employee } from '../employee/employee.entity';
import type { Grant } from '../../access/permissions/permission';

/** An employee's place in one company, with what the employee may do there. */
@Entity({ name: 'membership' })
export class Membership {
  @PrimaryColumn({ name: 'employee_id', type: 'integer' })
  employeeId: number;

  @PrimaryColumn({ name: 'company_id', type: 'integer' })
  companyId: number;

  @Column({ type: 'text', array: true })
  permissions: Grant[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /**
   * Set while the company's identity provider has the member deactivated (SCIM `active: false`): the row and
   * its permissions stay, but logins, switches and credentials treat it as no membership.
   */
  @Column({ name: 'suspended_at', type: 'timestamptz', nullable: true })
  suspendedAt: Date | null;

  @ManyToOne(() => Employee, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'employee_id' })
  employee?: Employee;

  @ManyToOne(() => Company, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'company_id' })
  company?: Company;
}
