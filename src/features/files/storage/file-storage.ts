import type { Readable } from 'node:stream';

/** Injection token of the {@link FileStorage} the files module uses. */
export const FILE_STORAGE = Symbol('FILE_STORAGE');

/** Complete, verified content waiting on local disk (see StagingArea), with what an object store wants to know. */
export interface StorableContent {
  path: string;
  size: number;
  sha256: string;
  contentType: string;
}

/**
 * Where file content lives, by key (`<company id>/<uuid>`, never a client's name). The local disk implements it
 * today; an object store can replace it without the service changing.
 */
export interface FileStorage {
  /** Stores the content under `key`. It may move `content.path` away; the caller removes whatever is left. */
  put(key: string, content: StorableContent): Promise<void>;
  /** The content under `key`; rejects when there is none. */
  get(key: string): Promise<Readable>;
  /** Removes the content under `key`; a missing key is not an error (deletes are retried after failures). */
  delete(key: string): Promise<void>;
}
