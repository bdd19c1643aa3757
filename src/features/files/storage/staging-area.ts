import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../../../platform/config/app-config';
import { SNIFF_BYTES } from '../file-metadata';

/** Content received completely and within the limit, on local disk, not yet stored. */
export interface StagedFile {
  path: string;
  size: number;
  sha256: string;
  /** The first bytes, for sniffing the type without reading the file again. */
  head: Buffer;
}

/** The content went over the byte limit; what was received of it is already deleted. */
export class FileTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`content over ${maxBytes} bytes`);
    this.name = 'FileTooLargeError';
  }
}

// Errors of the local disk (full, read-only, no permission): a fault of the service, never of the client's content.
const LOCAL_DISK_ERRORS = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'EIO', 'EMFILE', 'ENFILE']);

/** Whether staging failed because of this machine's disk rather than the incoming content. */
export function isLocalDiskError(error: unknown): boolean {
  return LOCAL_DISK_ERRORS.has((error as NodeJS.ErrnoException | null)?.code ?? '');
}

/** Staged files older than this at start are leftovers of a crash, not uploads in flight on another instance. */
const STALE_AFTER_MS = 60 * 60 * 1000;

/**
 * Where incoming content waits until it is complete, within the limit and hashed: `DATA_DIR/tmp/files`, beside
 * the local storage so that storing is a rename. Nothing half-received ever reaches the storage, so an upload
 * that fails leaves no file behind.
 */
@Injectable()
export class StagingArea implements OnModuleInit {
  readonly dir: string;

  constructor(config: AppConfig) {
    this.dir = join(config.dataDir, 'tmp', 'files');
  }

  async onModuleInit(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const now = Date.now();
    for (const name of await readdir(this.dir)) {
      const path = join(this.dir, name);
      const info = await stat(path).catch(() => null);
      if (info && now - info.mtimeMs > STALE_AFTER_MS) await rm(path, { force: true });
    }
  }

  /**
   * Streams `source` into a new staged file, counting, hashing and keeping the first bytes on the way. Over
   * `maxBytes`, on a source error or when `signal` aborts, the partial file is deleted and the error thrown.
   */
  async stage(source: Readable, maxBytes: number, signal?: AbortSignal): Promise<StagedFile> {
    await mkdir(this.dir, { recursive: true });
    const path = join(this.dir, randomUUID());
    const hash = createHash('sha256');
    let size = 0;
    let head = Buffer.alloc(0);
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        if (size > maxBytes) return callback(new FileTooLargeError(maxBytes));
        if (head.length < SNIFF_BYTES) head = Buffer.concat([head, chunk.subarray(0, SNIFF_BYTES - head.length)]);
        hash.update(chunk);
        callback(null, chunk);
      },
    });
    try {
      await pipeline(source, meter, createWriteStream(path, { flags: 'wx', mode: 0o600 }), { signal });
    } catch (error) {
      await this.discard(path);
      throw error;
    }
    return { path, size, sha256: hash.digest('hex'), head };
  }

  /** Removes a staged file; one already moved into the storage is simply gone. */
  async discard(path: string): Promise<void> {
    await rm(path, { force: true });
  }
}
