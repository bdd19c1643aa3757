import { Body, Controller, Get, Param, Post, Req } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Auth, CurrentPrincipal } from '../auth/auth.decorator';
import { CredentialService } from '../auth/credentials/credential.service';
import type { Principal } from '../auth/credentials/principal';
import { ApiError } from '../common/errors/api-error';
import { ErrorBodySchema } from '../common/errors/error-body.schema';
import { MultipartBody } from '../common/http/multipart';
import { RateLimit } from '../rate-limit/rate-limit.decorator';
import { AddImageFromUrlDto, FileDto, UploadFileDto } from './dto/file.dto';
import { FilesService } from './files.service';

@ApiTags('files')
// The source's table: both file routes share a POST bucket of 30 (drained per 3 s) instead of the general 15.
@RateLimit({ limits: { POST: 30 } })
@Controller({ path: 'files', version: '1' })
export class FilesController {
  constructor(private readonly files: FilesService) {}

  @Post()
  @MultipartBody()
  @Auth({ permission: 'files:write' })
  @ApiOperation({
    summary: 'Upload one file (multipart/form-data, part `file`) into the current company',
    description:
      'The content is stored under a generated name; the original name is kept (without directories or control ' +
      'characters) for display. The size limit is FILES_MAX_BYTES (10 MiB by default).',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: UploadFileDto })
  @ApiCreatedResponse({ description: 'The stored file', type: FileDto })
  @ApiBadRequestResponse({
    description:
      'error_validation: no part named `file`, a malformed body, or a part Content-Type that is no media type',
    type: ErrorBodySchema,
  })
  @ApiPayloadTooLargeResponse({
    description: 'error_payload_too_large: the file is over the limit (nothing is kept), or the body has extra parts',
    type: ErrorBodySchema,
  })
  @ApiUnsupportedMediaTypeResponse({
    description: 'error_unsupported_media_type: the body is not multipart/form-data',
    type: ErrorBodySchema,
  })
  upload(@CurrentPrincipal() principal: Principal, @Req() request: FastifyRequest): Promise<FileDto> {
    return this.files.upload(principal, request);
  }

  @Post('addimagefromurl')
  @Auth({ permission: 'files:write' })
  @ApiOperation({
    summary: 'Fetch a PNG, JPEG, GIF or WebP image from a public URL and store it like an upload',
    description:
      'Only public internet addresses are fetched (each redirect is checked again), within FILES_MAX_BYTES and ' +
      'FILES_FETCH_TIMEOUT_MS. The recorded content type is the one the bytes prove.',
  })
  @ApiCreatedResponse({ description: 'The stored image', type: FileDto })
  @ApiBadRequestResponse({
    description:
      'error_validation with a `url` detail: not http(s), a non-public address (private, loopback, link-local, ' +
      'metadata, ... — also after a redirect), more than 3 redirects, no image, over the size limit, or too slow',
    type: ErrorBodySchema,
  })
  addImageFromUrl(@CurrentPrincipal() principal: Principal, @Body() body: AddImageFromUrlDto): Promise<FileDto> {
    return this.files.addImageFromUrl(principal, body.url);
  }

  @Get(':id')
  @Auth({ permission: 'files:write' })
  @ApiOperation({ summary: "A file's record (the current company's files only)" })
  @ApiOkResponse({ description: "The file's record", type: FileDto })
  @ApiNotFoundResponse({ description: 'error_not_found: no such file in the current company', type: ErrorBodySchema })
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<FileDto> {
    if (!CredentialService.isUuid(id)) throw ApiError.notFound('No such file.');
    return this.files.get(principal, id);
  }
}
