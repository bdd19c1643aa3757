import type { EntityManager } from 'typeorm';
import { ApiError, type FieldError } from '../../platform/common/errors/api-error';
import { productsForOrder } from '../products/product-records';
import type { OrderDto } from './dto/order.dto';
import { OrderLine } from './order-line.entity';
import { Order } from './order.entity';

/** The order table's writes that OrdersService and the demo data share, inside the caller's transaction. */

export function toOrderDto(order: Order, lines: OrderLine[]): OrderDto {
  return {
    id: order.id,
    status: order.status,
    total: order.total,
    lines: lines.map((line) => ({
      product_id: line.productId,
      name: line.productName,
      sku: line.productSku,
      unit_price: line.unitPrice,
      quantity: line.quantity,
      line_total: line.lineTotal,
    })),
    created_at: order.createdAt.toISOString(),
    updated_at: order.updatedAt.toISOString(),
    cancelled_at: order.cancelledAt?.toISOString() ?? null,
  };
}

/**
 * Places an order: prices are the products' at this moment, and the order with all its lines is written in the
 * caller's transaction, so a failure at any step leaves no order behind. Prices and totals are never taken from
 * the client.
 */
export async function placeOrder(
  manager: EntityManager,
  companyId: number,
  input: { lines: ReadonlyArray<{ product_id: number; quantity: number }> },
  now: Date,
): Promise<OrderDto> {
  const found = await productsForOrder(
    manager,
    companyId,
    input.lines.map((line) => line.product_id),
  );
  const products = new Map(found.map((product) => [product.id, product]));

  // Another company's product and a missing one get the same answer: the caller cannot probe foreign ids.
  const unknown: FieldError[] = input.lines.flatMap((line, index) =>
    products.has(line.product_id)
      ? []
      : [{ field: `lines.${index}.product_id`, message: 'is not a product of this company' }],
  );
  if (unknown.length > 0) {
    throw ApiError.validation(`${unknown[0].field} is not a product of this company.`, unknown);
  }

  const lines = input.lines.map((line, position) => {
    const product = products.get(line.product_id)!;
    return manager.create(OrderLine, {
      position,
      productId: product.id,
      productName: product.name,
      productSku: product.sku,
      unitPrice: product.price,
      quantity: line.quantity,
      lineTotal: product.price * line.quantity,
    });
  });
  const order = manager.create(Order, {
    companyId,
    status: 'open',
    total: lines.reduce((sum, line) => sum + line.lineTotal, 0),
    createdAt: now,
    updatedAt: now,
    cancelledAt: null,
  });
  await manager.insert(Order, order);
  for (const line of lines) line.orderId = order.id;
  await manager.insert(OrderLine, lines);
  return toOrderDto(order, lines);
}
