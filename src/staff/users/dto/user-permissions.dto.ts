import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { MAX_RECORD_ID } from '../../../platform/common/http/record-id';
import type { Grant } from '../../../access/permissions/permission';
import { GRANT_NAMES } from '../../../access/permissions/permission';

export class ReplacePermissionsDto {
  @ApiProperty({
    type: [String],
    enum: GRANT_NAMES,
    isArray: true,
    example: ['products:read', 'orders:read'],
    description:
      'The complete new set (it replaces the old one). May be empty: the employee stays a member of the company ' +
      'and can still log in to it, but reach only routes that need no permission.',
  })
  @IsArray()
  @ArrayMaxSize(GRANT_NAMES.length)
  @ArrayUnique()
  @IsIn(GRANT_NAMES, { each: true })
  permissions: Grant[];

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'integer', minimum: 1, maximum: MAX_RECORD_ID },
    maxItems: 100,
    example: [3],
    description:
      "The complete new set of the employee's roles (ids of this company's roles); left out, the roles stay. " +
      "The effective permissions are the union of `permissions` and the roles'; the caller must hold them all.",
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(MAX_RECORD_ID, { each: true })
  roles?: number[];
}
