import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { LOGIN_METHODS, type LoginMethod } from '../login-session.entity';
import { REFRESH_TOKEN_EXAMPLE } from './login-result.dto';

export class RefreshTokenDto {
  @ApiProperty({ description: 'The refresh_token of the latest login result', example: REFRESH_TOKEN_EXAMPLE })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  refresh_token: string;
}

export class SessionDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  last_used_at: string;

  @ApiProperty({ enum: LOGIN_METHODS, description: 'How the person signed in', example: 'password' })
  method: LoginMethod;

  @ApiProperty({ nullable: true, type: String, example: '203.0.113.7' })
  ip: string | null;

  @ApiProperty({
    nullable: true,
    type: String,
    example:
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36',
  })
  user_agent: string | null;

  @ApiProperty({ description: 'The session of the token making this request' })
  current: boolean;
}

export class SessionListDto {
  @ApiProperty({ type: [SessionDto] })
  sessions: SessionDto[];
}
