import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsObject, IsString, IsUUID, MaxLength } from 'class-validator';

const RESPONSE_DOC = {
  type: 'object',
  additionalProperties: true,
  description:
    "The browser's credential as JSON (what @simplewebauthn/browser's startRegistration/startAuthentication answer)",
} as const;

export class AddPasskeyDto {
  @ApiProperty({ minLength: 1, maxLength: 64, example: 'Work laptop' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  name: string;

  @ApiProperty(RESPONSE_DOC)
  @IsObject()
  response: Record<string, unknown>;
}

export class PasskeyAssertionDto {
  @ApiProperty({ format: 'uuid', description: 'From POST /v1/users/passkeys/options (5 minutes, once)' })
  @IsUUID()
  challenge_id: string;

  @ApiProperty(RESPONSE_DOC)
  @IsObject()
  response: Record<string, unknown>;
}

export class PasskeyDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'Work laptop' })
  name: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

export class ListedPasskeyDto extends PasskeyDto {
  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  last_used_at: string | null;
}

export class PasskeyListDto {
  @ApiProperty({ type: [ListedPasskeyDto] })
  passkeys: ListedPasskeyDto[];
}

export class PasskeyOptionsDto {
  @ApiProperty({ format: 'uuid', description: 'Send it back with the response, within 5 minutes, once' })
  challenge_id: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'PublicKeyCredentialRequestOptionsJSON for navigator.credentials.get (startAuthentication)',
  })
  options: Record<string, unknown>;
}

export class PasskeyCompanyDto {
  @ApiProperty({ example: 1 })
  id: number;

  @ApiProperty({ example: 'Demo Company' })
  name: string;
}

export class PasskeyLoginTicketDto {
  @ApiProperty({ type: [PasskeyCompanyDto] })
  companies: PasskeyCompanyDto[];

  @ApiProperty({
    description: 'Send it to POST /v1/users/authenticatefinish with a company_id, within 60 seconds, once',
  })
  login_ticket: string;
}
