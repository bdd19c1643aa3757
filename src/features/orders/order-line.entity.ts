import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from './bigint-number';

/**
 * One product and quantity of an order. Name, SKU and unit price are copies taken when the order was placed: the
 * order stays what the customer agreed to when the product is later repriced, renamed or deleted.
 */
@Entity({ name: 'sales_order_line' })
export class OrderLine {
  @PrimaryGeneratedColumn('identity', { type: 'integer', generatedIdentity: 'BY DEFAULT' })
  id: number;

  @Column({ name: 'order_id', type: 'integer' })
  orderId: number;

  /** The line's index in the request (0-based), so lines come back in the order they were sent. */
  @Column({ type: 'smallint' })
  position: number;

  /** Null once the product is deleted (ON DELETE SET NULL); the copies below remain. */
  @Column({ name: 'product_id', type: 'integer', nullable: true })
  productId: number | null;

  @Column({ name: 'product_name', type: 'varchar', length: 200 })
  productName: string;

  @Column({ name: 'product_sku', type: 'varchar', length: 64 })
  productSku: string;

  /** Minor units. */
  @Column({ name: 'unit_price', type: 'integer' })
  unitPrice: number;

  @Column({ type: 'integer' })
  quantity: number;

  /** unit_price × quantity, minor units. */
  @Column({ name: 'line_total', type: 'bigint', transformer: bigintNumber })
  lineTotal: number;
}
