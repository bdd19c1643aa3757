import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { PageMetaDto, PageQueryDto } from '../../../platform/common/http/pagination';
import { RecordIdProperty } from '../../../platform/common/http/record-id';
import { ORDER_STATUSES, type OrderStatus } from '../order.entity';

export const MAX_ORDER_LINES = 100;
export const MAX_LINE_QUANTITY = 10_000;

export class OrderLineInputDto {
  @RecordIdProperty({ example: 17, description: 'A product of the current company' })
  product_id: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_LINE_QUANTITY, example: 2 })
  @IsInt()
  @Min(1)
  @Max(MAX_LINE_QUANTITY)
  quantity: number;
}

export class CreateOrderDto {
  @ApiProperty({
    type: [OrderLineInputDto],
    minItems: 1,
    maxItems: MAX_ORDER_LINES,
    description:
      'Prices are not sent: the server copies each unit price from the product. A product id that is not one ' +
      'of the current company answers 400 error_validation naming the line (`lines.0.product_id`).',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ORDER_LINES)
  @ValidateNested({ each: true })
  @Type(() => OrderLineInputDto)
  lines: OrderLineInputDto[];
}

/** The only change an order accepts: open → cancelled. */
export class UpdateOrderDto {
  @ApiProperty({
    enum: ['cancelled'],
    description:
      'Cancels an open order; an order that is already cancelled answers 400 error_validation (field `status`)',
  })
  @IsIn(['cancelled'])
  status: 'cancelled';
}

export class OrderLineDto {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 17,
    description: 'null once the product has been deleted; the copied name, sku and unit_price remain',
  })
  product_id: number | null;

  @ApiProperty({ example: 'Green tea 100 g', description: "The product's name when the order was placed" })
  name: string;

  @ApiProperty({ example: 'TEA-GRN-100', description: "The product's sku when the order was placed" })
  sku: string;

  @ApiProperty({
    type: 'integer',
    example: 1250,
    description: "The product's price when the order was placed (minor units)",
  })
  unit_price: number;

  @ApiProperty({ type: 'integer', example: 2 })
  quantity: number;

  @ApiProperty({ type: 'integer', example: 2500, description: 'unit_price × quantity (minor units)' })
  line_total: number;
}

export class OrderDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 5 })
  id: number;

  @ApiProperty({ enum: ORDER_STATUSES })
  status: OrderStatus;

  @ApiProperty({ type: 'integer', example: 2500, description: "Sum of the lines' totals (minor units)" })
  total: number;

  @ApiProperty({ type: [OrderLineDto] })
  lines: OrderLineDto[];

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  cancelled_at: string | null;
}

export class OrderListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ORDER_STATUSES, description: 'Only orders in this status' })
  @IsOptional()
  @IsIn(ORDER_STATUSES)
  status?: OrderStatus;
}

export class OrderPageDto extends PageMetaDto {
  @ApiProperty({ type: [OrderDto] })
  data: OrderDto[];
}
