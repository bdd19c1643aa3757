import { createHash } from 'node:crypto';
import type { RedisConnection } from '../redis-client/redis-connection';

/** A Lua script and its SHA-1, as EVALSHA names it. */
export interface Script {
  source: string;
  sha: string;
}

export const script = (source: string): Script => ({ source, sha: createHash('sha1').update(source).digest('hex') });

/** Runs a script by its SHA-1, sending its source only when the server has not cached it. */
export function runScript(
  redis: RedisConnection,
  { source, sha }: Script,
  keys: string[],
  args: (string | number)[],
): Promise<unknown> {
  return redis.evalsha(sha, keys.length, ...keys, ...args).catch((error: unknown) => {
    // After a restart or SCRIPT FLUSH the server has forgotten the script; EVAL runs and caches it again.
    // Safe to resend: NOSCRIPT means the first attempt ran nothing.
    if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
      return redis.eval(source, keys.length, ...keys, ...args);
    }
    throw error;
  });
}
