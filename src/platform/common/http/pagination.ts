import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export const MAX_PAGE_SIZE = 100;

/** `?page=1&per_page=20` on every list route. */
export class PageQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  page: number = 1;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  per_page: number = 20;

  get offset(): number {
    return (this.page - 1) * this.per_page;
  }
}

/** The envelope of every list: `{"data": [...], "page", "per_page", "total"}`. */
export class PageMetaDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1 })
  page: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, example: 20 })
  per_page: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 57, description: 'Items across all pages' })
  total: number;
}

export interface Page<T> extends PageMetaDto {
  data: T[];
}

export function toPage<T>(data: T[], total: number, query: PageQueryDto): Page<T> {
  return { data, page: query.page, per_page: query.per_page, total };
}

/** `text` as a literal inside a LIKE/ILIKE pattern (with the default `\` escape). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}
