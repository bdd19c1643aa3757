import type { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Principal } from '../../access/rules/principal';
import { ApiError } from '../../platform/common/errors/api-error';
import { APP_LOGGER } from '../../platform/common/logging/logging.module';
import type { AppLogger } from '../../platform/common/logging/logger';
import { type Page, type PageQueryDto, toPage } from '../../platform/common/http/pagination';
import type { FileDto } from './dto/file.dto';
import { StoredFile } from './file.entity';
import { FILE_STORAGE, type FileStorage } from './storage/file-storage';

const NOT_FOUND = 'No such file.';

export function toFileDto(file: StoredFile): FileDto {
  return {
    id: file.id,
    name: file.name,
    content_type: file.contentType,
    size: file.size,
    sha256: file.sha256,
    created_at: file.createdAt.toISOString(),
  };
}

/** A stored file's content, opened, with what its answer needs to say about it. */
export interface FileContent {
  file: FileDto;
  stream: Readable;
}

/**
 * The stored files of a company: read, listed, downloaded and deleted. Every query carries the company id, so a
 * file of another company is simply not found.
 */
@Injectable()
export class FileRecordsService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(FILE_STORAGE) private readonly storage: FileStorage,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  /** Newest first; the id breaks ties so that pages never overlap. */
  async list(principal: Principal, query: PageQueryDto): Promise<Page<FileDto>> {
    const [files, total] = await this.dataSource.getRepository(StoredFile).findAndCount({
      where: { companyId: principal.companyId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: query.offset,
      take: query.per_page,
    });
    return toPage(files.map(toFileDto), total, query);
  }

  async get(principal: Principal, id: string): Promise<FileDto> {
    return toFileDto(await this.find(principal, id));
  }

  /**
   * The content of a file. Content whose record exists but which the storage no longer has (deleted meanwhile
   * by a concurrent DELETE, or lost) is "not found" as well, never a 500.
   */
  async open(principal: Principal, id: string): Promise<FileContent> {
    const file = await this.find(principal, id);
    let stream: Readable;
    try {
      stream = await this.storage.get(file.storageKey);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.logger.warn({ storageKey: file.storageKey }, 'file record without stored content');
      throw ApiError.notFound(NOT_FOUND);
    }
    return { file: toFileDto(file), stream };
  }

  /**
   * Deletes the record, then the content. Once the record is gone the content is unreachable, so a failure to
   * remove it is logged for the operator and the delete still succeeds; the other way round, a failed content
   * delete would leave a record whose download fails.
   */
  async remove(principal: Principal, id: string): Promise<void> {
    const file = await this.find(principal, id);
    const result = await this.dataSource.getRepository(StoredFile).delete({ id, companyId: principal.companyId });
    // A concurrent DELETE of the same file won the race: to this one, the file is not there.
    if (result.affected !== 1) throw ApiError.notFound(NOT_FOUND);
    await this.storage.delete(file.storageKey).catch((error: unknown) => {
      this.logger.error({ err: error, storageKey: file.storageKey }, 'deleted file left its content behind');
    });
  }

  private async find(principal: Principal, id: string): Promise<StoredFile> {
    const file = await this.dataSource.getRepository(StoredFile).findOneBy({ id, companyId: principal.companyId });
    if (file === null) throw ApiError.notFound(NOT_FOUND);
    return file;
  }
}
