import { ApiProperty } from '@nestjs/swagger';

/** What the documentation shows (Swagger UI's sample otherwise reads "string"): shaped like what the service issues. */
export const JWT_EXAMPLE =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIiwiY2lkIjoxLCJzaWQiOiJlMDIyMTBlYS1lNzliLTRkYWEtYmIzYy1mM2YwNDY5ZTM3OTUiLCJpYXQiOjE3OTU2MTcwOTEsImV4cCI6MTc5NjgzNTU5OX0.0Q_H-LDrAHfCXpyvnyzHCl_KePql9o8Fr-HyEsZoCG4';
export const REFRESH_TOKEN_EXAMPLE = 'k5F6NczFlpq73F7nnN06lsvIXwzreeJ6_lC6fN1oK3Q';

export class CompanyRefDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1 })
  id: number;

  @ApiProperty({ example: 'Demo Company A' })
  name: string;
}

export class EmployeeRefDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1 })
  id: number;

  @ApiProperty({ format: 'email', example: 'owner@demo.example' })
  email: string;

  @ApiProperty({ example: 'Demo Owner' })
  name: string;
}

export class LoginCompanyDto extends CompanyRefDto {
  @ApiProperty({
    description: 'The company signs its staff in through its identity provider only (error_sso_required)',
  })
  sso: boolean;
}

export class CompanyListDto {
  @ApiProperty({ type: [LoginCompanyDto] })
  companies: LoginCompanyDto[];

  @ApiProperty({ description: 'The account has TOTP on: authenticatefinish needs `otp` or `recovery_code`' })
  otp_required: boolean;
}

export class LoginResultDto {
  @ApiProperty({
    description: 'The User Login Token: send it as the raw Authorization header value',
    example: JWT_EXAMPLE,
  })
  jwt: string;

  @ApiProperty({ description: 'Renews the token before it expires, once', example: REFRESH_TOKEN_EXAMPLE })
  refresh_token: string;

  @ApiProperty({ format: 'date-time', example: '2026-12-05T23:59:59+07:00', description: 'ISO 8601, Vietnam time' })
  expires_at: string;

  @ApiProperty({ format: 'uuid' })
  session_id: string;

  @ApiProperty({ type: CompanyRefDto })
  company: CompanyRefDto;

  @ApiProperty({ type: EmployeeRefDto })
  employee: EmployeeRefDto;
}
