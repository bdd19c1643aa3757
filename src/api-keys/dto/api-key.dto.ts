import { ApiProperty, PickType } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsIn, IsString, Length } from 'class-validator';
import type { Grant } from '../../permissions/permission';
import { GRANT_NAMES } from '../../users/dto/users.dto';

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

export class ApiKeyDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ type: [String], enum: GRANT_NAMES, isArray: true })
  permissions: Grant[];

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  last_used_at: string | null;
}

export class CreatedApiKeyDto extends PickType(ApiKeyDto, ['id', 'name', 'permissions'] as const) {
  @ApiProperty({
    example: 'ak_3kTq9vX2mB7pLw4Z:Yk1m…',
    description: 'key:secret — send it as the raw Authorization header value. Shown only in this response.',
  })
  api_key: string;
}

export class ApiKeyListDto {
  @ApiProperty({ type: [ApiKeyDto] })
  data: ApiKeyDto[];
}
