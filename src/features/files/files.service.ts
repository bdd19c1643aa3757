import { randomUUID } from 'node:crypto';
import type { MultipartFile } from '@fastify/multipart';
import { HttpStatus, Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';
import type { Principal } from '../../access/rules/principal';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import { APP_LOGGER } from '../../platform/common/logging/logging.module';
import type { AppLogger } from '../../platform/common/logging/logger';
import { AppConfig } from '../../platform/config/app-config';
import type { FileDto } from './dto/file.dto';
import { type FetchedImage, FetchRefusedError, SafeImageFetcher } from './fetch/safe-image-fetcher';
import { toFileDto } from './file-records.service';
import { StoredFile } from './file.entity';
import { normalizeMediaType, sanitizeFileName } from './file-metadata';
import { FILE_STORAGE, type FileStorage } from './storage/file-storage';
import { FileTooLargeError, isLocalDiskError, StagingArea, type StagedFile } from './storage/staging-area';

// The multipart plugin's limit errors: the body holds more than one file and a few small fields.
const MULTIPART_LIMIT_ERRORS = new Set([
  'FST_REQ_FILE_TOO_LARGE',
  'FST_FILES_LIMIT',
  'FST_PARTS_LIMIT',
  'FST_FIELDS_LIMIT',
]);

/**
 * The files of a company. Content is staged first (complete, within the limit, hashed), then handed to the
 * {@link FileStorage}, then recorded; a failure at any step removes what the earlier steps left.
 */
@Injectable()
export class FilesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly staging: StagingArea,
    private readonly fetcher: SafeImageFetcher,
    @Inject(FILE_STORAGE) private readonly storage: FileStorage,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  /** Stores the file of a multipart request (the part named `file`). */
  async upload(principal: Principal, request: FastifyRequest): Promise<FileDto> {
    const part = await this.filePart(request);
    const contentType = normalizeMediaType(part.mimetype);
    if (contentType === null) {
      part.file.resume();
      throw ApiError.validation('The file part has no usable Content-Type.', [
        { field: 'file', message: 'the Content-Type of the file part must be a media type such as image/png' },
      ]);
    }
    const staged = await this.stageUpload(part);
    return this.keep(principal, staged, { name: sanitizeFileName(part.filename), contentType });
  }

  /** Fetches an image from `url` (see {@link SafeImageFetcher}) and stores it like an upload. */
  async addImageFromUrl(principal: Principal, url: string): Promise<FileDto> {
    let image: FetchedImage;
    try {
      image = await this.fetcher.fetch(url);
    } catch (error) {
      if (!(error instanceof FetchRefusedError)) throw error;
      throw ApiError.validation(error.message, [{ field: 'url', message: error.message }]);
    }
    return this.keep(principal, image.staged, { name: image.name, contentType: image.contentType });
  }

  private async filePart(request: FastifyRequest): Promise<MultipartFile> {
    let part: MultipartFile | undefined;
    try {
      part = await request.file();
    } catch (error) {
      throw this.multipartError(error);
    }
    if (part === undefined || part.fieldname !== 'file') {
      part?.file.resume();
      throw ApiError.validation('The body must carry the file in a part named "file".', [
        { field: 'file', message: 'file is required' },
      ]);
    }
    return part;
  }

  private async stageUpload(part: MultipartFile): Promise<StagedFile> {
    const maxBytes = this.config.filesMaxBytes;
    // The parser stops at the limit and only marks the stream truncated; stop at once instead of storing a part.
    part.file.once('limit', () => part.file.destroy(new FileTooLargeError(maxBytes)));
    let staged: StagedFile;
    try {
      staged = await this.staging.stage(part.file, maxBytes);
    } catch (error) {
      if (error instanceof FileTooLargeError) throw this.tooLarge();
      if (isLocalDiskError(error)) throw error;
      throw ApiError.validation('The upload ended before the file was complete.', [
        { field: 'file', message: 'the file part is incomplete or malformed' },
      ]);
    }
    if (part.file.truncated) {
      await this.staging.discard(staged.path);
      throw this.tooLarge();
    }
    return staged;
  }

  private multipartError(error: unknown): ApiError {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && MULTIPART_LIMIT_ERRORS.has(code)) {
      return new ApiError(
        ErrorCode.PayloadTooLarge,
        HttpStatus.PAYLOAD_TOO_LARGE,
        'The body may carry one file and at most 10 small fields.',
      );
    }
    return ApiError.validation('The multipart body is malformed.', [
      { field: 'file', message: 'the multipart body could not be read' },
    ]);
  }

  private tooLarge(): ApiError {
    return new ApiError(
      ErrorCode.PayloadTooLarge,
      HttpStatus.PAYLOAD_TOO_LARGE,
      `The file is larger than the limit of ${this.config.filesMaxBytes} bytes.`,
    );
  }

  /** Moves staged content into the storage and records it; the staged file is gone afterwards, whatever happens. */
  private async keep(
    principal: Principal,
    staged: StagedFile,
    meta: { name: string; contentType: string },
  ): Promise<FileDto> {
    const id = randomUUID();
    const storageKey = `${principal.companyId}/${id}`;
    try {
      await this.storage.put(storageKey, { ...staged, contentType: meta.contentType });
    } finally {
      await this.staging.discard(staged.path);
    }

    const repository = this.dataSource.getRepository(StoredFile);
    const file = repository.create({
      id,
      companyId: principal.companyId,
      employeeId: principal.employeeId,
      name: meta.name,
      contentType: meta.contentType,
      size: staged.size,
      sha256: staged.sha256,
      storageKey,
      createdAt: this.clock.now(),
    });
    try {
      await repository.insert(file);
    } catch (error) {
      // Without its record the content is unreachable: remove it, and say so if even that fails.
      await this.storage.delete(storageKey).catch((deleteError: unknown) => {
        this.logger.error({ err: deleteError, storageKey }, 'stored file left without a record');
      });
      throw error;
    }
    return toFileDto(file);
  }
}
