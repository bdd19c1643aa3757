import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length, Matches } from 'class-validator';
import { PageMetaDto } from '../../../platform/common/http/pagination';

export class CreateScimTokenDto {
  @ApiPropertyOptional({ example: 'Okta provisioning', description: 'A label for the list; default "SCIM token"' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  @Matches(/\S/, { message: 'name must not be blank' })
  name?: string;
}

export class CreatedScimTokenDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({
    description:
      'The bearer token for the identity provider (Authorization: Bearer <token> on /scim/v2); shown only here',
    example: 'scim_4fJm…',
  })
  token: string;
}

export class ScimTokenDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ type: String, format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_used_at: string | null;
}

export class ScimTokenPageDto extends PageMetaDto {
  @ApiProperty({ type: [ScimTokenDto] })
  data: ScimTokenDto[];
}
