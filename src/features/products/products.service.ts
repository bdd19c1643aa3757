import { Injectable } from '@nestjs/common';
import { DataSource, QueryFailedError } from 'typeorm';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { type Page, toPage } from '../../platform/common/http/pagination';
import type { ProductDto, ProductInputDto, ProductListQueryDto, ProductPatchDto } from './dto/product.dto';
import { Product } from './product.entity';

const UNIQUE_VIOLATION = '23505';
// The migration's unique index (1763700200000-CreateProducts); a violation of any other is not a taken sku.
const SKU_INDEX = 'product_company_id_sku_key';
const NOT_FOUND = 'No such product.';

/** `%`, `_` and the escape character itself match literally in a name filter (backslash is LIKE's default escape). */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** What node-postgres and PGlite both report of a failed statement. */
interface DriverError {
  code?: string;
  constraint?: string;
}

export function toProductDto(product: Product): ProductDto {
  return {
    id: product.id,
    name: product.name,
    sku: product.sku,
    price: product.price,
    created_at: product.createdAt.toISOString(),
    updated_at: product.updatedAt.toISOString(),
  };
}

/**
 * The products of one company. Every query carries the company id, so a record of another company is simply
 * not found (404), never forbidden: the caller learns nothing about other companies' ids.
 */
@Injectable()
export class ProductsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  async list(companyId: number, query: ProductListQueryDto): Promise<Page<ProductDto>> {
    const builder = this.dataSource
      .getRepository(Product)
      .createQueryBuilder('product')
      .where('product.companyId = :companyId', { companyId });
    if (query.name) {
      builder.andWhere('product.name ILIKE :pattern', { pattern: `%${escapeLike(query.name)}%` });
    }
    const [products, total] = await builder
      .orderBy('product.id', 'ASC')
      .offset(query.offset)
      .limit(query.per_page)
      .getManyAndCount();
    return toPage(products.map(toProductDto), total, query);
  }

  async get(companyId: number, id: number): Promise<ProductDto> {
    const product = await this.dataSource.getRepository(Product).findOneBy({ id, companyId });
    if (!product) throw ApiError.notFound(NOT_FOUND);
    return toProductDto(product);
  }

  async create(companyId: number, input: ProductInputDto): Promise<ProductDto> {
    const now = this.clock.now();
    const repository = this.dataSource.getRepository(Product);
    const product = repository.create({ companyId, ...this.editable(input), createdAt: now, updatedAt: now });
    try {
      await repository.insert(product);
    } catch (error) {
      throw this.translate(error);
    }
    return toProductDto(product);
  }

  /** PUT semantics: every editable field is replaced; id, company and created_at stay. */
  replace(companyId: number, id: number, input: ProductInputDto): Promise<ProductDto> {
    return this.update(companyId, id, this.editable(input));
  }

  /** PATCH semantics: only the fields sent change; a body that sends none changes nothing and is refused. */
  patch(companyId: number, id: number, input: ProductPatchDto): Promise<ProductDto> {
    const changes: Partial<Pick<Product, 'name' | 'sku' | 'price'>> = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.sku !== undefined) changes.sku = input.sku;
    if (input.price !== undefined) changes.price = input.price;
    if (Object.keys(changes).length === 0) {
      throw ApiError.validation('Send at least one of name, sku and price.', [
        { field: 'body', message: 'at least one of name, sku and price is required' },
      ]);
    }
    return this.update(companyId, id, changes);
  }

  private async update(
    companyId: number,
    id: number,
    fields: Partial<Pick<Product, 'name' | 'sku' | 'price'>>,
  ): Promise<ProductDto> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        const repository = manager.getRepository(Product);
        // Locked so that the row returned is exactly the one this statement wrote.
        const product = await repository.findOne({ where: { id, companyId }, lock: { mode: 'pessimistic_write' } });
        if (!product) throw ApiError.notFound(NOT_FOUND);
        const changes = { ...fields, updatedAt: this.clock.now() };
        await repository.update({ id, companyId }, changes);
        return toProductDto({ ...product, ...changes });
      });
    } catch (error) {
      throw this.translate(error);
    }
  }

  /** Order lines keep their copies of name, SKU and price; their product_id becomes null (ON DELETE SET NULL). */
  async remove(companyId: number, id: number): Promise<void> {
    const result = await this.dataSource.getRepository(Product).delete({ id, companyId });
    if (result.affected !== 1) throw ApiError.notFound(NOT_FOUND);
  }

  private editable(input: ProductInputDto): Pick<Product, 'name' | 'sku' | 'price'> {
    return { name: input.name, sku: input.sku, price: input.price };
  }

  /**
   * A unique violation of the (company_id, sku) index is a taken SKU: 409 error_conflict. Checking first instead
   * would race with a concurrent write of the same SKU; the index decides, and the loser gets the 409.
   */
  private translate(error: unknown): unknown {
    const driverError = error instanceof QueryFailedError ? (error.driverError as DriverError | undefined) : undefined;
    if (driverError?.code === UNIQUE_VIOLATION && driverError.constraint === SKU_INDEX) {
      return ApiError.conflict('A product with this sku already exists in this company.');
    }
    return error;
  }
}
