import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsEmail, IsIn, IsString, Length, MaxLength } from 'class-validator';
import { CompanyRefDto, EmployeeRefDto } from '../../auth/dto/login-result.dto';
import { ALL_PERMISSIONS, type Grant, PERMISSIONS } from '../../permissions/permission';

export const GRANT_NAMES = [...PERMISSIONS, ALL_PERMISSIONS];

export class MeDto {
  @ApiProperty({ type: EmployeeRefDto })
  employee: EmployeeRefDto;

  @ApiProperty({ type: CompanyRefDto })
  company: CompanyRefDto;

  @ApiProperty({ type: [String], example: ['users:read'], enum: GRANT_NAMES, isArray: true })
  permissions: Grant[];

  @ApiProperty({ enum: ['jwt', 'api_key'] })
  credential: 'jwt' | 'api_key';

  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'null for an API key' })
  session_id: string | null;
}

export class CompanyEmployeeDto extends EmployeeRefDto {
  @ApiProperty({ type: [String], enum: GRANT_NAMES, isArray: true })
  permissions: Grant[];
}

export class EmployeeListDto {
  @ApiProperty({ type: [CompanyEmployeeDto] })
  data: CompanyEmployeeDto[];
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
