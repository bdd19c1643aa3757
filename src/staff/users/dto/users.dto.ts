import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
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
import { CompanyRefDto, EmployeeRefDto } from '../../../identity/sessions/dto/login-result.dto';
import { PageMetaDto, PageQueryDto } from '../../../platform/common/http/pagination';
import { GRANT_NAMES, type Grant } from '../../../access/permissions/permission';

export class MfaStateDto {
  @ApiProperty({ description: 'TOTP is on for the account' })
  totp: boolean;

  @ApiProperty({ type: 'integer', minimum: 0, example: 0, description: 'How many passkeys the account has' })
  passkeys: number;
}

/** A role a member holds (docs/contract.md "Company policies and roles"). */
export class RoleRefDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 3 })
  id: number;

  @ApiProperty({ example: 'Support' })
  name: string;
}

const EFFECTIVE =
  "Effective: the member's own permissions and those of every role it holds (for an API key, capped by the key's).";

export class MeDto {
  @ApiProperty({ type: EmployeeRefDto })
  employee: EmployeeRefDto;

  @ApiProperty({ type: CompanyRefDto })
  company: CompanyRefDto;

  @ApiProperty({ type: [String], example: ['users:read'], enum: GRANT_NAMES, isArray: true, description: EFFECTIVE })
  permissions: Grant[];

  @ApiProperty({ type: [RoleRefDto], description: 'The roles the employee holds in the company' })
  roles: RoleRefDto[];

  @ApiProperty({ enum: ['jwt', 'api_key'] })
  credential: 'jwt' | 'api_key';

  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'null for an API key' })
  session_id: string | null;

  @ApiProperty({ type: MfaStateDto, description: "The account's second factors" })
  mfa: MfaStateDto;

  @ApiPropertyOptional({
    enum: ['mfa_enrollment'],
    description: 'The session may only enrol a second factor (the company requires one), then log in again',
  })
  restricted?: 'mfa_enrollment';
}

export class CompanyEmployeeDto extends EmployeeRefDto {
  @ApiProperty({ type: [String], enum: GRANT_NAMES, isArray: true, description: EFFECTIVE })
  permissions: Grant[];

  @ApiProperty({ type: [RoleRefDto], description: 'The roles the employee holds in the company' })
  roles: RoleRefDto[];
}

export class ListedEmployeeDto extends CompanyEmployeeDto {
  @ApiProperty({ description: 'Whether the employee has TOTP (a second factor) on' })
  mfa: boolean;
}

export class EmployeePageDto extends PageMetaDto {
  @ApiProperty({ type: [ListedEmployeeDto] })
  data: ListedEmployeeDto[];
}

export class EmployeeListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 320,
    description: 'Only employees whose e-mail or name contains this text, ignoring case',
  })
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @Length(1, 320)
  q?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'Only employees with (true) or without (false) TOTP' })
  @IsOptional()
  @IsIn(['true', 'false'])
  mfa?: 'true' | 'false';
}

export class CreateEmployeeDto {
  @ApiProperty({ format: 'email', example: 'ann@acme.example' })
  @IsEmail()
  @MaxLength(320)
  email: string;

  @ApiProperty({ format: 'password', minLength: 8, maxLength: 256 })
  @IsString()
  @Length(8, 256)
  password: string;

  @ApiProperty({ example: 'Ann' })
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({ type: [String], enum: GRANT_NAMES, isArray: true, example: ['products:read'] })
  @IsArray()
  @ArrayMaxSize(GRANT_NAMES.length)
  @ArrayUnique()
  @IsIn(GRANT_NAMES, { each: true })
  permissions: Grant[];
}
