import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsObject, IsOptional, IsString, IsUUID, Matches, MaxLength } from 'class-validator';

/** docs/contract.md: `{current_password, otp?}`, or a passkey's `{challenge_id, response}`. */
export class ReauthenticateDto {
  @ApiPropertyOptional({ format: 'password', description: 'The password (with `otp` when TOTP is on)' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  current_password?: string;

  @ApiPropertyOptional({ pattern: '^[0-9]{6}$', example: '123456', description: 'The current TOTP code' })
  @IsOptional()
  @IsString()
  @Matches(/^[0-9]{6}$/, { message: 'otp must be 6 digits' })
  otp?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'A passkey: the challenge of POST /v1/users/passkeys/options' })
  @IsOptional()
  @IsUUID()
  challenge_id?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: "A passkey: the browser's assertion (startAuthentication's answer) to that challenge",
  })
  @IsOptional()
  @IsObject()
  response?: Record<string, unknown>;
}
