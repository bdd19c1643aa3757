import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { PageMetaDto, PageQueryDto } from '../../../platform/common/http/pagination';

/** Money ceiling per unit, in minor units; with the order limits it keeps every total a safe integer. */
export const MAX_PRICE = 1_000_000_000;

/** Surrounding blanks are not part of a name: `" Tea "` and `"Tea"` are one name, and `"  "` is none. */
const Trimmed = () => Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));

/** The editable fields: POST creates a product with them, PUT replaces all of them. */
export class ProductInputDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Green tea 100 g', description: 'Trimmed' })
  @Trimmed()
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({
    minLength: 1,
    maxLength: 64,
    pattern: '^[A-Za-z0-9._/-]+$',
    example: 'TEA-GRN-100',
    description: 'Unique within the company, case-sensitive; one already used there answers 409 error_conflict',
  })
  @IsString()
  @Length(1, 64)
  @Matches(/^[A-Za-z0-9._/-]+$/, { message: "sku may contain only letters, digits, '.', '_', '/' and '-'" })
  sku: string;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: MAX_PRICE,
    example: 1250,
    description: "Unit price in minor units (cents) of the company's currency: 1250 is 12.50",
  })
  @IsInt()
  @Min(0)
  @Max(MAX_PRICE)
  price: number;
}

/**
 * PATCH: only the fields sent change. A field sent as null is refused like any other wrong value (it is not
 * "unset": every field is required on a product), hence `skipNullProperties: false`.
 */
export class ProductPatchDto extends PartialType(ProductInputDto, { skipNullProperties: false }) {}

export class ProductDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 17 })
  id: number;

  @ApiProperty({ example: 'Green tea 100 g' })
  name: string;

  @ApiProperty({ example: 'TEA-GRN-100' })
  sku: string;

  @ApiProperty({ type: 'integer', minimum: 0, example: 1250, description: 'Minor units (cents)' })
  price: number;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

export class ProductListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 200,
    description: 'Only products whose name contains this text, ignoring case (e.g. `tea`)',
  })
  @IsOptional()
  @Trimmed()
  @IsString()
  @Length(1, 200)
  name?: string;
}

export class ProductPageDto extends PageMetaDto {
  @ApiProperty({ type: [ProductDto] })
  data: ProductDto[];
}
