import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { RecordIdProperty } from '../../common/http/record-id';

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
  @ApiPropertyOptional({ pattern: '^[0-9]{6}$', example: '123456', description: 'The current 6-digit TOTP code' })
  @IsOptional()
  @IsString()
  @Matches(/^[0-9]{6}$/, { message: 'otp must be 6 digits' })
  otp?: string;

  @ApiPropertyOptional({ example: 'abcd-efgh-ijkl-mnop', description: 'One of the recovery codes (each works once)' })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  recovery_code?: string;
}

export class LoginDto extends SecondFactorDto {
  @RecordIdProperty({ example: 1, description: 'One of the companies authenticateinit returned' })
  company_id: number;
}
