import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import type { Grant } from '../../../access/permissions/permission';
import { GRANT_NAMES } from '../../../access/permissions/permission';

export class SsoJitDto {
  @ApiProperty({ description: "Create unknown accounts of the connection's domains at their first login" })
  @IsBoolean()
  enabled: boolean;

  @ApiProperty({ type: [String], enum: GRANT_NAMES, isArray: true, example: ['products:read'] })
  @IsArray()
  @ArrayMaxSize(GRANT_NAMES.length)
  @ArrayUnique()
  @IsIn(GRANT_NAMES, { each: true })
  permissions: Grant[];
}

export class PutSsoConnectionDto {
  @ApiProperty({ example: 'https://login.microsoftonline.com/<tenant>/v2.0' })
  @IsString()
  @Length(8, 512)
  issuer: string;

  @ApiProperty()
  @IsString()
  @Length(1, 512)
  client_id: string;

  @ApiProperty({ description: 'Stored encrypted; never answered' })
  @IsString()
  @Length(1, 2048)
  client_secret: string;

  @ApiProperty({ type: [String], example: ['example.com'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ArrayUnique()
  @IsString({ each: true })
  @Matches(
    /^(?=.{1,253}$)[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/,
    {
      each: true,
      message: 'each email_domains entry must be a domain name like example.com',
    },
  )
  email_domains: string[];

  @ApiProperty()
  @IsBoolean()
  enforced: boolean;

  @ApiProperty({ type: SsoJitDto })
  @ValidateNested()
  @Type(() => SsoJitDto)
  jit: SsoJitDto;
}

export class SsoDnsTxtDto {
  @ApiProperty({ example: '_staff-auth-challenge.example.com' })
  name: string;

  @ApiProperty({ example: 'staff-auth-domain-verification=3q2-7wAAAAAAAAAAAAAAAAAA' })
  value: string;
}

export class SsoDomainDto {
  @ApiProperty({ example: 'example.com' })
  domain: string;

  @ApiProperty({ description: "Proven by DNS: only then do the domain's e-mails sign in through the connection" })
  verified: boolean;

  @ApiProperty({ type: SsoDnsTxtDto, description: 'The TXT record to publish to prove the domain' })
  dns_txt: SsoDnsTxtDto;

  @ApiPropertyOptional({ description: 'Why the last verification left the domain unproven (verify answers only)' })
  error?: string;
}

export class SsoConnectionDto {
  @ApiProperty()
  issuer: string;

  @ApiProperty()
  client_id: string;

  @ApiProperty({ type: [SsoDomainDto] })
  email_domains: SsoDomainDto[];

  @ApiProperty()
  enforced: boolean;

  @ApiProperty({ type: SsoJitDto })
  jit: SsoJitDto;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The URL to register at the provider as the redirect URI: <PUBLIC_URL>/v1/sso/callback (null in production ' +
      'until PUBLIC_URL is set)',
  })
  redirect_uri: string | null;
}

export class SsoStartDto {
  @ApiPropertyOptional({ description: 'The company to sign in to; or give `email`' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  company_id?: number;

  @ApiPropertyOptional({ description: 'An e-mail whose domain a connection claims; or give `company_id`' })
  @IsOptional()
  @IsEmail()
  @Length(3, 320)
  email?: string;

  @ApiProperty({ example: '/admin', description: 'A path of this service, or an origin of CORS_ORIGINS and a path' })
  @IsString()
  @Length(1, 2048)
  return_to: string;
}

export class SsoStartResultDto {
  @ApiProperty()
  authorization_url: string;
}

export class SsoExchangeDto {
  @ApiProperty()
  @IsString()
  @Length(1, 128)
  sso_code: string;
}

export class BackchannelLogoutDto {
  @ApiProperty({ description: 'The logout token (a JWT signed by the provider)' })
  @IsString()
  @Length(1, 16_384)
  logout_token: string;
}
