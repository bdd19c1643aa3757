import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Patch, Post, Put, Query } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Auth, CurrentPrincipal } from '../../access/rules/auth.decorator';
import type { Principal } from '../../access/rules/principal';
import { ErrorBodySchema } from '../../platform/common/errors/error-body.schema';
import { ApiRecordId, RecordId } from '../../platform/common/http/record-id';
import { ProductDto, ProductInputDto, ProductListQueryDto, ProductPageDto, ProductPatchDto } from './dto/product.dto';
import { ProductsService } from './products.service';

const NOT_FOUND = 'No such product.';

const SkuTaken = () =>
  ApiConflictResponse({
    description: 'error_conflict: another product of the current company already has this sku; nothing changed',
    type: ErrorBodySchema,
  });

@ApiTags('products')
@Controller({ path: 'products', version: '1' })
export class ProductsController {
  constructor(private readonly products: ProductsService) {}

  @Get()
  @Auth({ permission: 'products:read' })
  @ApiOperation({ summary: "A page of the current company's products, by id; optionally filtered by name" })
  @ApiOkResponse({ type: ProductPageDto })
  list(@CurrentPrincipal() principal: Principal, @Query() query: ProductListQueryDto): Promise<ProductPageDto> {
    return this.products.list(principal.companyId, query);
  }

  @Post()
  @Auth({ permission: 'products:write' })
  @ApiOperation({ summary: 'Create a product in the current company' })
  @ApiCreatedResponse({ type: ProductDto })
  @SkuTaken()
  create(@CurrentPrincipal() principal: Principal, @Body() body: ProductInputDto): Promise<ProductDto> {
    return this.products.create(principal.companyId, body);
  }

  @Get(':id')
  @Auth({ permission: 'products:read' })
  @ApiOperation({ summary: 'One product of the current company' })
  @ApiRecordId('product')
  @ApiOkResponse({ type: ProductDto })
  get(@CurrentPrincipal() principal: Principal, @RecordId(NOT_FOUND) id: number): Promise<ProductDto> {
    return this.products.get(principal.companyId, id);
  }

  @Put(':id')
  @Auth({ permission: 'products:write' })
  @ApiOperation({ summary: 'Replace the name, sku and price of a product (all three are required)' })
  @ApiRecordId('product')
  @ApiOkResponse({ type: ProductDto })
  @SkuTaken()
  replace(
    @CurrentPrincipal() principal: Principal,
    @RecordId(NOT_FOUND) id: number,
    @Body() body: ProductInputDto,
  ): Promise<ProductDto> {
    return this.products.replace(principal.companyId, id, body);
  }

  @Patch(':id')
  @Auth({ permission: 'products:write' })
  @ApiOperation({
    summary: 'Change some of the name, sku and price of a product',
    description:
      'Only the fields sent change; the others keep their values. At least one field must be sent; null is ' +
      'refused like any other wrong value.',
  })
  @ApiRecordId('product')
  @ApiOkResponse({ type: ProductDto })
  @SkuTaken()
  update(
    @CurrentPrincipal() principal: Principal,
    @RecordId(NOT_FOUND) id: number,
    @Body() body: ProductPatchDto,
  ): Promise<ProductDto> {
    return this.products.patch(principal.companyId, id, body);
  }

  @Delete(':id')
  @Auth({ permission: 'products:write' })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Delete a product; orders keep the name, sku and price their lines copied' })
  @ApiRecordId('product')
  @ApiNoContentResponse()
  async remove(@CurrentPrincipal() principal: Principal, @RecordId(NOT_FOUND) id: number): Promise<void> {
    await this.products.remove(principal.companyId, id);
  }
}
