import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, In } from 'typeorm';
import { Clock } from '../common/clock/clock';
import { ApiError, type FieldError } from '../common/errors/api-error';
import { type Page, toPage } from '../common/http/pagination';
import { ProductsService } from '../products/products.service';
import type { CreateOrderDto, OrderDto, OrderListQueryDto } from './dto/order.dto';
import { OrderLine } from './order-line.entity';
import { Order } from './order.entity';

const NOT_FOUND = 'No such order.';

function toOrderDto(order: Order, lines: OrderLine[]): OrderDto {
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
 * Orders of one company. Every query carries the company id, so another company's order is "not found" (404),
 * and an order can only be made of the company's own products.
 */
@Injectable()
export class OrdersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly products: ProductsService,
    private readonly clock: Clock,
  ) {}

  async list(companyId: number, query: OrderListQueryDto): Promise<Page<OrderDto>> {
    const [orders, total] = await this.dataSource.getRepository(Order).findAndCount({
      where: { companyId, ...(query.status ? { status: query.status } : {}) },
      order: { id: 'ASC' },
      skip: query.offset,
      take: query.per_page,
    });
    return toPage(await this.withLines(this.dataSource.manager, orders), total, query);
  }

  async get(companyId: number, id: number): Promise<OrderDto> {
    const order = await this.dataSource.getRepository(Order).findOneBy({ id, companyId });
    if (!order) throw ApiError.notFound(NOT_FOUND);
    const [dto] = await this.withLines(this.dataSource.manager, [order]);
    return dto;
  }

  /**
   * Places an order: prices are the products' at this moment, and the order with all its lines is written in
   * one transaction, so a failure at any step leaves no order behind. Prices and totals are never taken from
   * the client.
   */
  create(companyId: number, input: CreateOrderDto): Promise<OrderDto> {
    return this.dataSource.transaction(async (manager) => {
      const found = await this.products.findForOrder(
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

      const now = this.clock.now();
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
    });
  }

  /**
   * open → cancelled, in one conditional UPDATE so that two concurrent cancels cannot both succeed. Cancelling a
   * cancelled order is refused (400) rather than ignored: the caller asked for a transition that did not happen.
   */
  async cancel(companyId: number, id: number): Promise<OrderDto> {
    const now = this.clock.now();
    const result = await this.dataSource
      .createQueryBuilder()
      .update(Order)
      .set({ status: 'cancelled', cancelledAt: now, updatedAt: now })
      .where('id = :id AND company_id = :companyId AND status = :open', { id, companyId, open: 'open' })
      .execute();
    if (result.affected !== 1) {
      const exists = await this.dataSource.getRepository(Order).existsBy({ id, companyId });
      if (!exists) throw ApiError.notFound(NOT_FOUND);
      throw ApiError.validation('The order is already cancelled.', [
        { field: 'status', message: 'only an open order can be cancelled; this one is already cancelled' },
      ]);
    }
    return this.get(companyId, id);
  }

  /** The orders with their lines, in two queries whatever the page size. */
  private async withLines(manager: EntityManager, orders: Order[]): Promise<OrderDto[]> {
    if (orders.length === 0) return [];
    const lines = await manager.getRepository(OrderLine).find({
      where: { orderId: In(orders.map((order) => order.id)) },
      order: { orderId: 'ASC', position: 'ASC' },
    });
    const byOrder = new Map<number, OrderLine[]>();
    for (const line of lines) byOrder.set(line.orderId, [...(byOrder.get(line.orderId) ?? []), line]);
    return orders.map((order) => toOrderDto(order, byOrder.get(order.id) ?? []));
  }
}
