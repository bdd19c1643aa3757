import { Module } from '@nestjs/common';
import { Feature } from '../../platform/common/feature/feature';
import { CreateProducts1763700200000 } from './migrations/1763700200000-CreateProducts';
import { Product } from './product.entity';
import { ProductsController } from './products.controller';
import { ProductsService } from './products.service';

/** /v1/products. Listed in src/features.ts; its tables and migrations are the ones named here. */
@Feature({ entities: [Product], migrations: [CreateProducts1763700200000] })
@Module({
  controllers: [ProductsController],
  providers: [ProductsService],
  // Other folders reach the table only through this service or product-records.ts (orders read prices there).
  exports: [ProductsService],
})
export class ProductsModule {}
