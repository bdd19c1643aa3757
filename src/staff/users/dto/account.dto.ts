import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsNotEmpty, IsString, Length, Matches, MaxLength } from 'class-validator';

const NEW_PASSWORD = {
  format: 'password',
  minLength: 8,
  maxLength: 256,
  description: '8 to 256 characters, not the account’s e-mail, not a commonly used or breached password',
} as const;

export class ChangePasswordDto {
  @ApiProperty({ format: 'password' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  current_password: string;

  @ApiProperty(NEW_PASSWORD)
  @IsString()
  @MaxLength(1024)
  new_password: string;
}

export class ResetPasswordDto {
  @ApiProperty({ format: 'email', example: 'ann@acme.example' })
  @IsEmail()
  @MaxLength(320)
  email: string;

  @ApiProperty({
    description: 'The code an administrator issued (POST /v1/users/{id}/passwordreset)',
    example: 'Zt8mQ2wVx5KcR9nLp3HyB6fJd4sE7aUg',
  })
  @IsString()
  @Length(1, 128)
  code: string;

  @ApiProperty(NEW_PASSWORD)
  @IsString()
  @MaxLength(1024)
  new_password: string;
}

export class ResetCodeDto {
  @ApiProperty({
    description: 'Shown only in this answer; valid 24 hours, once',
    example: 'Zt8mQ2wVx5KcR9nLp3HyB6fJd4sE7aUg',
  })
  code: string;

  @ApiProperty({ format: 'date-time' })
  expires_at: string;
}

export class CurrentPasswordDto {
  @ApiProperty({ format: 'password' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  current_password: string;
}

export class OtpDto {
  @ApiProperty({ pattern: '^[0-9]{6}$', example: '123456', description: 'The current 6-digit code of the app' })
  @IsString()
  @Matches(/^[0-9]{6}$/, { message: 'otp must be 6 digits' })
  otp: string;
}

export class DisableTotpDto extends CurrentPasswordDto {
  @ApiProperty({ pattern: '^[0-9]{6}$', example: '123456' })
  @IsString()
  @Matches(/^[0-9]{6}$/, { message: 'otp must be 6 digits' })
  otp: string;
}

export class TotpEnrolmentDto {
  @ApiProperty({ description: 'The TOTP secret in base32, shown only in this answer', example: 'JBSWY3DPEHPK3PXP' })
  secret: string;

  @ApiProperty({ example: 'otpauth://totp/Staff%20Auth:ann%40acme.example?issuer=Staff%20Auth&secret=…' })
  otpauth_uri: string;

  @ApiProperty({ type: [String], minItems: 10, maxItems: 10, description: 'Each works once instead of a code' })
  recovery_codes: string[];
}
