import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
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

export class LoginDto extends CredentialsDto {
  @RecordIdProperty({ example: 1, description: 'One of the companies authenticateinit returned' })
  company_id: number;
}
