import { accessSync, constants, statSync } from 'node:fs';
import { resolve } from 'node:path';

/** A setting that is missing or malformed; the message names the key and is one line. */
export class ConfigError extends Error {
  constructor(
    readonly key: string,
    problem: string,
  ) {
    super(`${key} ${problem}`);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

export function read(env: Env, key: string): string | undefined {
  const value = env[key];
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

export function integer(env: Env, key: string, fallback: number, min: number, max: number): number {
  const raw = read(env, key);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(key, `must be a whole number from ${min} to ${max}, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) {
    throw new ConfigError(key, `must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

export function boolean(env: Env, key: string): boolean | undefined {
  const raw = read(env, key)?.toLowerCase();
  if (raw === undefined) return undefined;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(key, `must be true or false, got "${raw}"`);
}

export function oneOf<T extends string>(env: Env, key: string, allowed: readonly T[], fallback: T): T {
  const raw = read(env, key);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(key, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

export function url(env: Env, key: string, protocols: string[]): string | undefined {
  const raw = read(env, key);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    // Never echo the value: a connection URL usually carries a password.
    throw new ConfigError(key, `must be a ${protocols.join(' or ')} URL`);
  }
  if (!protocols.includes(parsed.protocol.replace(/:$/, '') + '://')) {
    throw new ConfigError(key, `must be a ${protocols.join(' or ')} URL`);
  }
  return raw;
}

export function readableFile(env: Env, key: string): string | undefined {
  const raw = read(env, key);
  if (raw === undefined) return undefined;
  const path = resolve(raw);
  try {
    accessSync(path, constants.R_OK);
    if (!statSync(path).isFile()) throw new Error('not a file');
  } catch {
    throw new ConfigError(key, `must name a readable file, got "${raw}"`);
  }
  return path;
}

export function positiveNumber(env: Env, key: string, fallback: number): number {
  const raw = read(env, key);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !Number.isFinite(value) || value <= 0) {
    throw new ConfigError(key, `must be a positive number, got "${raw}"`);
  }
  return value;
}
