import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsNotEmpty, IsString, MaxLength, Min } from 'class-validator';

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

export class LoginDto extends CredentialsDto {
  @ApiProperty({ example: 1, description: 'One of the companies authenticateinit returned' })
  @IsInt()
  @Min(1)
  company_id: number;
}

export class RefreshTokenDto {
  @ApiProperty({ description: 'The refresh_token of the latest login result' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  refresh_token: string;
}

export class ChangeWorkingCompanyDto {
  @ApiProperty({ example: 2 })
  @IsInt()
  @Min(1)
  company_id: number;
}
