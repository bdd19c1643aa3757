import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

/** RFC 7662 §2.1: the token, and the hint the RFC allows (read, not needed: the token's form tells). */
export class IntrospectTokenDto {
  @ApiProperty({
    description: 'A login token (JWT) or an API key (`key:secret`), as it would stand in `Authorization`',
    maxLength: 4096,
  })
  @IsString()
  @MinLength(1)
  @MaxLength(4096)
  token: string;

  @ApiPropertyOptional({ enum: ['access_token', 'jwt', 'api_key'] })
  @IsOptional()
  @IsIn(['access_token', 'jwt', 'api_key'])
  token_type_hint?: string;
}

/** RFC 7662 §2.2: `active` only, when the token is not a live one of the caller's company. */
export class IntrospectionDto {
  @ApiProperty({ description: 'Whether the token is live now (not revoked, expired, unknown, or of another company)' })
  active: boolean;

  @ApiPropertyOptional({ enum: ['jwt', 'api_key'] })
  token_type?: 'jwt' | 'api_key';

  @ApiPropertyOptional({ description: 'The employee id, as a string (the JWT `sub`)', example: '7' })
  sub?: string;

  @ApiPropertyOptional({ example: 1 })
  company_id?: number;

  @ApiPropertyOptional({ description: 'The login session (JWT only)', format: 'uuid' })
  sid?: string;

  @ApiPropertyOptional({ description: 'The permissions, space-separated', example: 'users:read products:read' })
  scope?: string;

  @ApiPropertyOptional({ description: 'Issued at (seconds since 1970): the token, or when the API key was made' })
  iat?: number;

  @ApiPropertyOptional({ description: 'Expires at (seconds since 1970); absent for an API key, which never expires' })
  exp?: number;
}
