import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from './bigint-number';

export const ORDER_STATUSES = ['open', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** An order of one company. Its lines and total are fixed when it is placed; only its status changes later. */
@Entity({ name: 'sales_order' })
export class Order {
  @PrimaryGeneratedColumn('identity', { type: 'integer', generatedIdentity: 'BY DEFAULT' })
  id: number;

  @Column({ name: 'company_id', type: 'integer' })
  companyId: number;

  @Column({ type: 'varchar', length: 16 })
  status: OrderStatus;

  /** Sum of the lines' totals, in minor units, computed by the server. */
  @Column({ type: 'bigint', transformer: bigintNumber })
  total: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'cancelled_at', type: 'timestamptz', nullable: true })
  cancelledAt: Date | null;
}
