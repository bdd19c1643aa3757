import { Module } from '@nestjs/common';
import { ProductsController } from './products.controller';
import { ProductsService } from './products.service';

@Module({
  controllers: [ProductsController],
  providers: [ProductsService],
  // Other folders reach the table only through this service or product-records.ts (orders read prices there).
  exports: [ProductsService],
})
export class ProductsModule {}
