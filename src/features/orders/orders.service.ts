import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, In } from 'typeorm';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { type Page, toPage } from '../../platform/common/http/pagination';
import type { CreateOrderDto, OrderDto, OrderListQueryDto } from './dto/order.dto';
import { OrderLine } from './order-line.entity';
import { Order } from './order.entity';
import { placeOrder, toOrderDto } from './order-records';

const NOT_FOUND = 'No such order.';

/**
 * Orders of one company. Every query carries the company id, so another company's order is "not found" (404),
 * and an order can only be made of the company's own products.
 */
@Injectable()
export class OrdersService {
  constructor(
    private readonly dataSource: DataSource,
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

  /** Places an order in one transaction (see {@link placeOrder}). */
  create(companyId: number, input: CreateOrderDto): Promise<OrderDto> {
    return this.dataSource.transaction((manager) => placeOrder(manager, companyId, input, this.clock.now()));
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
