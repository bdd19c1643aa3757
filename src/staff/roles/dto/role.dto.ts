import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayUnique, IsArray, IsIn, IsString, Length } from 'class-validator';
import { PageMetaDto } from '../../../platform/common/http/pagination';
import { GRANT_NAMES, type Grant } from '../../../access/permissions/permission';

/** `POST /v1/roles` and `PUT /v1/roles/{id}`: the whole role (PUT replaces both fields). */
export class RoleInputDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Support', description: 'Unique in the company, any case' })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({
    type: [String],
    enum: GRANT_NAMES,
    isArray: true,
    example: ['users:read', 'orders:read'],
    description: 'What a holder of the role may do; only permissions the caller holds itself.',
  })
  @IsArray()
  @ArrayMaxSize(GRANT_NAMES.length)
  @ArrayUnique()
  @IsIn(GRANT_NAMES, { each: true })
  permissions: Grant[];
}

export class RoleDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 3 })
  id: number;

  @ApiProperty({ example: 'Support' })
  name: string;

  @ApiProperty({ type: [String], enum: GRANT_NAMES, isArray: true, example: ['users:read'] })
  permissions: Grant[];

  @ApiProperty({ type: 'integer', minimum: 0, example: 4, description: 'How many members hold it' })
  holders: number;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

export class RolePageDto extends PageMetaDto {
  @ApiProperty({ type: [RoleDto] })
  data: RoleDto[];
}
