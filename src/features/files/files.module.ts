import { Module } from '@nestjs/common';
import { Feature } from '../../platform/common/feature/feature';
import { CreateFiles1763700400000 } from './migrations/1763700400000-CreateFiles';
import { StoredFile } from './file.entity';
import { HOST_RESOLVER, systemHostResolver } from '../../platform/common/outbound/pinned-request';
import { SafeImageFetcher } from './fetch/safe-image-fetcher';
import { FileRecordsService } from './file-records.service';
import { FilesController } from './files.controller';
import { FilesService } from './files.service';
import { FILE_STORAGE } from './storage/file-storage';
import { LocalFileStorage } from './storage/local-file-storage';
import { StagingArea } from './storage/staging-area';

/**
 * Uploads and server-side image fetches, stored through a replaceable {@link FILE_STORAGE}. Listed in
 * src/features.ts; its tables and migrations are the ones named here.
 */
@Feature({ entities: [StoredFile], migrations: [CreateFiles1763700400000] })
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
