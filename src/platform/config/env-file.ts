import { existsSync } from 'node:fs';

/**
 * Reads `.env` from the working directory when present. Variables already set in the environment win, so a
 * deployment's real environment is never overridden by a stray file.
 */
export function loadEnvFile(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
}
