import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsEmail,
  IsIn,
  IsOptional,
  IsString,
  Length,
  MaxLength,
} from 'class-validator';
import { SecondFactorDto } from '../../../identity/sessions/dto/credentials.dto';
import { PageMetaDto } from '../../../platform/common/http/pagination';
import type { Grant } from '../../../access/permissions/permission';
import { GRANT_NAMES } from '../../../access/permissions/permission';

export class CreateInvitationDto {
  @ApiProperty({ format: 'email', example: 'new.hire@acme.example' })
  @IsEmail()
  @MaxLength(320)
  email: string;

  @ApiProperty({ type: [String], enum: GRANT_NAMES, isArray: true, example: ['products:read'] })
  @IsArray()
  @ArrayMaxSize(GRANT_NAMES.length)
  @ArrayUnique()
  @IsIn(GRANT_NAMES, { each: true })
  permissions: Grant[];
}

export class InvitationDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'email' })
  email: string;

  @ApiProperty({ type: [String], enum: GRANT_NAMES, isArray: true })
  permissions: Grant[];

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  expires_at: string;
}

export class CreatedInvitationDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'email' })
  email: string;

  @ApiProperty({ type: [String], enum: GRANT_NAMES, isArray: true })
  permissions: Grant[];

  @ApiProperty({
    description: 'Shown only in this answer; valid 7 days, once',
    example: 'qX3v9Lr2TfWk8pZmN4bYc7HsJd6eA1uG',
  })
  code: string;

  @ApiProperty({ format: 'date-time' })
  expires_at: string;
}

export class InvitationPageDto extends PageMetaDto {
  @ApiProperty({ type: [InvitationDto] })
  data: InvitationDto[];
}

/**
 * Accepting: an existing account proves itself with its password (and its second factor when TOTP is on); a new
 * e-mail creates the account with that password (and `name`).
 */
export class AcceptInvitationDto extends SecondFactorDto {
  @ApiProperty({ description: 'The invitation code', example: 'qX3v9Lr2TfWk8pZmN4bYc7HsJd6eA1uG' })
  @IsString()
  @Length(1, 128)
  code: string;

  @ApiPropertyOptional({ example: 'Ann', description: 'For a new account (default: the part of the e-mail before @)' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;
}
