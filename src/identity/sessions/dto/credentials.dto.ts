import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, Length, Matches, MaxLength, ValidateIf } from 'class-validator';
import { RecordIdProperty } from '../../../platform/common/http/record-id';

/** The second factor's two fields, the same on both login routes that take them. */
const OtpProperty = () =>
  applyDecorators(
    ApiPropertyOptional({ pattern: '^[0-9]{6}$', example: '123456', description: 'The current 6-digit TOTP code' }),
    IsOptional(),
    IsString(),
    Matches(/^[0-9]{6}$/, { message: 'otp must be 6 digits' }),
  );
const RecoveryCodeProperty = () =>
  applyDecorators(
    ApiPropertyOptional({ example: 'abcd-efgh-ijkl-mnop', description: 'One of the recovery codes (each works once)' }),
    IsOptional(),
    IsString(),
    Length(1, 64),
  );

export class CredentialsDto {
  @ApiProperty({ example: 'owner@demo.example' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(320)
  email: string;

  @ApiProperty({ example: 'correct horse battery staple', format: 'password' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  password: string;
}

/** The second factor, for an account with TOTP on: one of the two. */
export class SecondFactorDto extends CredentialsDto {
  @OtpProperty()
  otp?: string;

  @RecoveryCodeProperty()
  recovery_code?: string;
}

/**
 * The request examples of authenticatefinish, one per way of logging in; each is a body the route accepts. The
 * demo owner's e-mail and first company (src/seed), with the password left for the reader to paste.
 */
export const LOGIN_EXAMPLES = {
  password: {
    summary: 'E-mail and password (the demo owner; paste the password npm start printed)',
    value: { email: 'owner@demo.example', password: 'PASTE-PASSWORD', company_id: 1 },
  },
  totp: {
    summary: 'With the TOTP code, when authenticateinit answered "otp_required": true',
    value: { email: 'owner@demo.example', password: 'PASTE-PASSWORD', otp: '123456', company_id: 1 },
  },
  passkey: {
    summary: 'A passkey login: the login_ticket of POST /v1/users/passkeys/authenticate, nothing else',
    value: { login_ticket: 'PASTE-LOGIN-TICKET', company_id: 1 },
  },
};

/** Without a login ticket, the e-mail and password are required (and checked again): the source's login. */
const withoutTicket = (body: { login_ticket?: unknown }) => body.login_ticket === undefined;

/**
 * Login step 2: the credentials again (with the second factor when TOTP is on), or a passkey login's
 * `login_ticket` (docs/contract.md, Passkeys and step-up) — not both.
 */
export class LoginDto {
  @ApiPropertyOptional({ example: 'owner@demo.example', description: 'Required unless login_ticket is sent' })
  @ValidateIf(withoutTicket)
  @IsString()
  @IsNotEmpty()
  @MaxLength(320)
  email?: string;

  @ApiPropertyOptional({
    example: 'correct horse battery staple',
    format: 'password',
    description: 'Required unless login_ticket is sent',
  })
  @ValidateIf(withoutTicket)
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  password?: string;

  @OtpProperty()
  otp?: string;

  @RecoveryCodeProperty()
  recovery_code?: string;

  @ApiPropertyOptional({
    description: 'From POST /v1/users/passkeys/authenticate (60 seconds, once), instead of e-mail and password',
  })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  login_ticket?: string;

  @RecordIdProperty({ example: 1, description: 'One of the companies authenticateinit returned' })
  company_id: number;
}
