import type { EntityManager } from 'typeorm';
import { Product } from './product.entity';

/** What other folders write or read in the product table, inside the caller's transaction (its EntityManager). */

/** New products of one company (the demo data); their ids, in the order given. */
export async function insertProducts(
  manager: EntityManager,
  companyId: number,
  products: ReadonlyArray<Pick<Product, 'name' | 'sku' | 'price'>>,
  now: Date,
): Promise<number[]> {
  const rows = products.map((product) =>
    manager.create(Product, { companyId, ...product, createdAt: now, updatedAt: now }),
  );
  await manager.insert(Product, rows);
  return rows.map((row) => row.id);
}

/**
 * The company's products among `ids`, for an order being written in `manager`'s transaction. They are held with
 * FOR KEY SHARE until it commits, so a product deleted meanwhile cannot make the lines' foreign key fail: the
 * delete waits instead. Ids of other companies are simply absent from the result.
 */
export function productsForOrder(manager: EntityManager, companyId: number, ids: number[]): Promise<Product[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return manager
    .getRepository(Product)
    .createQueryBuilder('product')
    .where('product.companyId = :companyId', { companyId })
    .andWhere('product.id IN (:...ids)', { ids: [...new Set(ids)] })
    .setLock('for_key_share')
    .getMany();
}
