import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { PageMetaDto } from '../../../platform/common/http/pagination';

export class FileDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({
    example: 'invoice-2026-11.pdf',
    description: "The client's file name, without directories or control characters",
  })
  name: string;

  @ApiProperty({ example: 'application/pdf' })
  content_type: string;

  @ApiProperty({ type: 'integer', minimum: 0, example: 48213, description: 'Bytes' })
  size: number;

  @ApiProperty({
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    description: 'SHA-256 of the content, lowercase hex',
  })
  sha256: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

export class FilePageDto extends PageMetaDto {
  @ApiProperty({ type: [FileDto] })
  data: FileDto[];
}

/** OpenAPI description of the multipart body of `POST /v1/files` (read from the stream, not validated as a DTO). */
export class UploadFileDto {
  @ApiProperty({ type: 'string', format: 'binary', description: 'The file; its part Content-Type is recorded' })
  file: unknown;
}

export class AddImageFromUrlDto {
  @ApiProperty({
    format: 'uri',
    example: 'https://example.com/images/logo.png',
    description: 'An http or https URL of a PNG, JPEG, GIF or WebP image on a public internet address',
  })
  @IsString()
  @MaxLength(2048)
  url: string;
}
