import { Body, Controller, Get, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentPrincipal } from '../../access/rules/auth.decorator';
import type { Principal } from '../../access/rules/principal';
import { ApiRecordId, RecordId } from '../../platform/common/http/record-id';
import { CreateOrderDto, OrderDto, OrderListQueryDto, OrderPageDto, UpdateOrderDto } from './dto/order.dto';
import { OrdersService } from './orders.service';

const NOT_FOUND = 'No such order.';

@ApiTags('orders')
@Controller({ path: 'orders', version: '1' })
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  @Get()
  @Auth({ permission: 'orders:read' })
  @ApiOperation({ summary: "A page of the current company's orders with their lines, by id; optionally by status" })
  @ApiOkResponse({ type: OrderPageDto })
  list(@CurrentPrincipal() principal: Principal, @Query() query: OrderListQueryDto): Promise<OrderPageDto> {
    return this.orders.list(principal.companyId, query);
  }

  @Post()
  @Auth({ permission: 'orders:write' })
  @ApiOperation({
    summary: "Place an order of the current company's products; the server copies unit prices and computes totals",
  })
  @ApiCreatedResponse({ type: OrderDto })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateOrderDto): Promise<OrderDto> {
    return this.orders.create(principal.companyId, body);
  }

  @Get(':id')
  @Auth({ permission: 'orders:read' })
  @ApiOperation({ summary: 'One order of the current company, with its lines' })
  @ApiRecordId('order')
  @ApiOkResponse({ type: OrderDto })
  get(@CurrentPrincipal() principal: Principal, @RecordId(NOT_FOUND) id: number): Promise<OrderDto> {
    return this.orders.get(principal.companyId, id);
  }

  /** PUT with the status, not a DELETE: a cancelled order stays readable, and status is the only mutable field. */
  @Put(':id')
  @Auth({ permission: 'orders:write' })
  @ApiOperation({ summary: 'Cancel an open order: `{"status": "cancelled"}`' })
  @ApiRecordId('order')
  @ApiOkResponse({ type: OrderDto })
  update(
    @CurrentPrincipal() principal: Principal,
    @RecordId(NOT_FOUND) id: number,
    // Validated (only "cancelled" passes); the status itself carries no further choice.
    @Body() _body: UpdateOrderDto,
  ): Promise<OrderDto> {
    return this.orders.cancel(principal.companyId, id);
  }
}
