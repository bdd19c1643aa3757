import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/**
 * What the documentation shows (Swagger UI's sample otherwise reads "string"): a token as the service issues one,
 * EdDSA with the key's `kid` and the claims of TokenIssuer, signed once by a key thrown away afterwards.
 */
export const JWT_EXAMPLE =
  'eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCIsImtpZCI6IjZCTmh4WjEzT29QdmVuLVlGbmpNeUs4RkZqT2hzQ2o4bjRqVmdHcEJENk0ifQ.' +
  'eyJzdWIiOiIxIiwiY2lkIjoxLCJzaWQiOiJlMDIyMTBlYS1lNzliLTRkYWEtYmIzYy1mM2YwNDY5ZTM3OTUiLCJpYXQiOjE3OTU2MTcwOTEs' +
  'ImV4cCI6MTc5NjgzNTU5OSwianRpIjoiNWIwYzlmN2UtM2ExZC00YzhlLTlmNjAtMmQ3YTQxYjhjM2U1In0.' +
  'hRJKeLVjFu6XT5TyjGEB47fc7JoYs-Yi_7Ccc1JU70A4DWHxMG4g1vLpU2FG0Xh0mmv2SnHZX54vMWSFjjG1AQ';
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

  @ApiPropertyOptional({
    enum: ['mfa_enrollment'],
    description:
      'The company requires a second factor and this login proved none: only /v1/users/me, its mfa/* and passkeys ' +
      'routes and logout answer (others: 403 error_mfa_enrollment_required) until one is enrolled and the person ' +
      'logs in again',
  })
  restricted?: 'mfa_enrollment';
}
