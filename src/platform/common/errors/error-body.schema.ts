import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

class FieldErrorSchema {
  @ApiProperty({ example: 'email' })
  field: string;

  @ApiProperty({ example: 'email must be an email' })
  message: string;
}

/** OpenAPI description of the one error body (docs/contract.md "Error bodies"). */
export class ErrorBodySchema {
  @ApiProperty({ type: [String], example: ['error_validation'], description: 'Exactly one error code' })
  error: string[];

  @ApiProperty({ example: 'The request is not valid.' })
  message: string;

  @ApiPropertyOptional({ type: [FieldErrorSchema], description: 'Validation errors only' })
  details?: FieldErrorSchema[];

  @ApiPropertyOptional({ description: '500 only: quote it when reporting the error', format: 'uuid' })
  correlation_id?: string;
}
