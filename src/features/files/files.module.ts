import { Module } from '@nestjs/common';
import { HOST_RESOLVER, systemHostResolver } from '../../platform/common/outbound/pinned-request';
import { SafeImageFetcher } from './fetch/safe-image-fetcher';
import { FileRecordsService } from './file-records.service';
import { FilesController } from './files.controller';
import { FilesService } from './files.service';
import { FILE_STORAGE } from './storage/file-storage';
import { LocalFileStorage } from './storage/local-file-storage';
import { StagingArea } from './storage/staging-area';

/** Uploads and server-side image fetches, stored through a replaceable {@link FILE_STORAGE}. */
@Module({
  controllers: [FilesController],
  providers: [
    FilesService,
    FileRecordsService,
    StagingArea,
    SafeImageFetcher,
    { provide: FILE_STORAGE, useClass: LocalFileStorage },
    { provide: HOST_RESOLVER, useValue: systemHostResolver },
  ],
})
export class FilesModule {}
