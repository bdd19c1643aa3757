import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Something a company sells. Orders copy its name, SKU and price, so editing or deleting it never rewrites one. */
@Entity({ name: 'product' })
@Index('product_company_id_sku_key', ['companyId', 'sku'], { unique: true })
export class Product {
  @PrimaryGeneratedColumn('identity', { type: 'integer', generatedIdentity: 'BY DEFAULT' })
  id: number;

  @Column({ name: 'company_id', type: 'integer' })
  companyId: number;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** Unique within the company (case-sensitive); two companies may use the same SKU. */
  @Column({ type: 'varchar', length: 64 })
  sku: string;

  /** Minor units (cents) of the company's one currency: integers keep sums exact. */
  @Column({ type: 'integer' })
  price: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
