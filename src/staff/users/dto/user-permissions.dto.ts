import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsIn } from 'class-validator';
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
}
