import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
} from 'class-validator';
import { PageMetaDto, PageQueryDto } from '../../../platform/common/http/pagination';
import type { Grant } from '../../../access/permissions/permission';
import { GRANT_NAMES } from '../../../access/permissions/permission';

export class CreateApiKeyDto {
  @ApiProperty({ example: 'warehouse sync' })
  @IsString()
  @Length(1, 100)
  name: string;

  @ApiProperty({ type: [String], enum: GRANT_NAMES, isArray: true, example: ['products:read'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(GRANT_NAMES.length)
  @ArrayUnique()
  @IsIn(GRANT_NAMES, { each: true })
  permissions: Grant[];
}

export class ApiKeyBaseDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ type: [String], enum: GRANT_NAMES, isArray: true })
  permissions: Grant[];
}

export class ApiKeyOwnerDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 7 })
  id: number;

  @ApiProperty({ format: 'email' })
  email: string;
}

export class ApiKeyDto extends ApiKeyBaseDto {
  @ApiProperty({ example: 'ak_3kTq9vX2mB7pLw4Z', description: 'The part of the key before `:` (not secret)' })
  prefix: string;

  @ApiProperty({ type: ApiKeyOwnerDto, description: 'The employee the key acts as' })
  owner: ApiKeyOwnerDto;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  last_used_at: string | null;
}

export class CreatedApiKeyDto extends PickType(ApiKeyBaseDto, ['id', 'name', 'permissions'] as const) {
  @ApiProperty({
    example: 'ak_3kTq9vX2mB7pLw4Z:Yk1m…',
    description: 'key:secret — send it as the raw Authorization header value. Shown only in this response.',
  })
  api_key: string;
}

export class ApiKeyPageDto extends PageMetaDto {
  @ApiProperty({ type: [ApiKeyDto] })
  data: ApiKeyDto[];
}

export class ApiKeyListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 40, description: 'Only keys whose prefix starts with this text' })
  @IsOptional()
  @IsString()
  @Length(1, 40)
  prefix?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'Only keys of this employee (its id)' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  owner?: number;
}
