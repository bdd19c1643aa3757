import { ApiProperty } from '@nestjs/swagger';

export class CompanyRefDto {
  @ApiProperty({ example: 1 })
  id: number;

  @ApiProperty({ example: 'Demo Company A' })
  name: string;
}

export class EmployeeRefDto {
  @ApiProperty({ example: 1 })
  id: number;

  @ApiProperty({ example: 'owner@demo.example' })
  email: string;

  @ApiProperty({ example: 'Demo Owner' })
  name: string;
}

export class CompanyListDto {
  @ApiProperty({ type: [CompanyRefDto] })
  companies: CompanyRefDto[];
}

export class LoginResultDto {
  @ApiProperty({ description: 'The User Login Token: send it as the raw Authorization header value' })
  jwt: string;

  @ApiProperty({ description: 'Renews the token before it expires, once' })
  refresh_token: string;

  @ApiProperty({ example: '2026-12-05T23:59:59+07:00', description: 'ISO 8601, Vietnam time' })
  expires_at: string;

  @ApiProperty({ format: 'uuid' })
  session_id: string;

  @ApiProperty({ type: CompanyRefDto })
  company: CompanyRefDto;

  @ApiProperty({ type: EmployeeRefDto })
  employee: EmployeeRefDto;
}

export class SessionDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  last_used_at: string;

  @ApiProperty({ nullable: true, type: String })
  ip: string | null;

  @ApiProperty({ nullable: true, type: String })
  user_agent: string | null;

  @ApiProperty({ description: 'The session of the token making this request' })
  current: boolean;
}

export class SessionListDto {
  @ApiProperty({ type: [SessionDto] })
  sessions: SessionDto[];
}
