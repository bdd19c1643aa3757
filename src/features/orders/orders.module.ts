import { Module } from '@nestjs/common';
import { Feature } from '../../platform/common/feature/feature';
import { CreateOrders1763700300000 } from './migrations/1763700300000-CreateOrders';
import { Order } from './order.entity';
import { OrderLine } from './order-line.entity';
import { OrdersController } from './orders.controller';
import { OrdersService } from './orders.service';

/** /v1/orders and their lines. Listed in src/features.ts; its tables and migrations are the ones named here. */
@Feature({ entities: [Order, OrderLine], migrations: [CreateOrders1763700300000] })
@Module({
  controllers: [OrdersController],
  providers: [OrdersService],
})
export class OrdersModule {}
