import { Module } from '@nestjs/common';
import { ProductsController } from './products.controller';
import { ProductsService } from './products.service';

@Module({
  controllers: [ProductsController],
  providers: [ProductsService],
  // Other modules reach products only through this service (orders read prices with it), never the table.
  exports: [ProductsService],
})
export class ProductsModule {}
