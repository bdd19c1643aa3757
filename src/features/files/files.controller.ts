import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
  HttpStatus,
  Param,
  Post,
  Query,
  Req,
  StreamableFile,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Auth, CurrentPrincipal } from '../../access/rules/auth.decorator';
import { isUuid } from '../../platform/common/http/uuid';
import type { Principal } from '../../access/rules/principal';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorBodySchema } from '../../platform/common/errors/error-body.schema';
import { MultipartBody } from '../../platform/common/http/multipart';
import { PageQueryDto } from '../../platform/common/http/pagination';
import { RateLimit } from '../../access/rules/rate-limit.decorator';
import { attachmentDisposition } from './content-disposition';
import { AddImageFromUrlDto, FileDto, FilePageDto, UploadFileDto } from './dto/file.dto';
import { FileRecordsService } from './file-records.service';
import { FilesService } from './files.service';

const NOT_FOUND = 'No such file.';

/** File ids are uuids: anything else names no file, like an id of another company (404, never 400). */
function fileId(raw: string): string {
  if (!isUuid(raw)) throw ApiError.notFound(NOT_FOUND);
  return raw;
}

const FileNotFound = () =>
  ApiNotFoundResponse({ description: 'error_not_found: no such file in the current company', type: ErrorBodySchema });

// A stored file is whatever a member of the company uploaded, HTML and SVG included: it is only ever downloaded,
// never shown by the browser as a page of this origin, and no cache keeps a copy after it was deleted.
const CONTENT_HEADERS = {
  'Content-Disposition': 'attachment; the file name as `filename`, and as RFC 5987 `filename*` when not plain ASCII',
  'X-Content-Type-Options': '`nosniff`: the stored content type is the only one the browser may use',
  'Content-Security-Policy': "`default-src 'none'; sandbox`: nothing in the file runs, even when opened",
  'Cache-Control': '`private, no-store`',
  'Content-Length': 'The size in bytes',
};

@ApiTags('files')
// The source's table: the two upload routes share a POST bucket of 30 (drained per 3 s) instead of the general 15;
// the other methods keep the table's limits (DELETE 3, GET 30).
@RateLimit({ limits: { POST: 30 } })
@Controller({ path: 'files', version: '1' })
export class FilesController {
  constructor(
    private readonly files: FilesService,
    private readonly records: FileRecordsService,
  ) {}

  @Get()
  @Auth({ permission: 'files:write' })
  @ApiOperation({ summary: "A page of the current company's files (their records, not the content), newest first" })
  @ApiOkResponse({ type: FilePageDto })
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto): Promise<FilePageDto> {
    return this.records.list(principal, query);
  }

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
  @FileNotFound()
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<FileDto> {
    return this.records.get(principal, fileId(id));
  }

  @Get(':id/content')
  @Auth({ permission: 'files:write' })
  @Header('X-Content-Type-Options', 'nosniff')
  @Header('Content-Security-Policy', "default-src 'none'; sandbox")
  @Header('Cache-Control', 'private, no-store')
  @ApiOperation({
    summary: "Download a file's content, with the content type it was stored with, as an attachment",
  })
  @ApiOkResponse({
    description: 'The bytes as uploaded, with the stored content type',
    content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
    headers: Object.fromEntries(
      Object.entries(CONTENT_HEADERS).map(([name, description]) => [
        name,
        { description, required: true, schema: { type: name === 'Content-Length' ? 'integer' : 'string' } },
      ]),
    ),
  })
  @FileNotFound()
  async getFileContent(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<StreamableFile> {
    const { file, stream } = await this.records.open(principal, fileId(id));
    return new StreamableFile(stream, {
      type: file.content_type,
      disposition: attachmentDisposition(file.name),
      length: file.size,
    });
  }

  @Delete(':id')
  @Auth({ permission: 'files:write' })
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Delete a file: its record and its content' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @FileNotFound()
  async remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    await this.records.remove(principal, fileId(id));
  }
}
