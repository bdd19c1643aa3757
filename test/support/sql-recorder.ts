import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Client } from 'pg';

/**
 * Records the shape of every statement this test file sends PostgreSQL (the app's and the test's own), for
 * test/repository/database-coverage.spec.ts: a file that runs on one database only may send no statement that
 * the files running on both do not send too. Values, parameter lists and names made per run are masked.
 */
export const SQL_RECORD_DIR = join(tmpdir(), `staff-auth-sql-${process.env.JEST_RUN_ID ?? 'local'}`);

export function sqlShape(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/'(?:[^']|'')*'/g, "'?'")
    .replace(/"staff_auth_[a-z]+_[\w]+"/g, '"db"')
    .replace(/\$\d+(?:\s*,\s*\$\d+)*/g, '$n')
    .replace(/\b\d+\b/g, '0')
    .trim();
}

const shapes = new Set<string>();
const query = Client.prototype.query as (...args: unknown[]) => unknown;
Client.prototype.query = function recorded(this: Client, ...args: unknown[]) {
  const first = args[0] as string | { text?: string } | undefined;
  const text = typeof first === 'string' ? first : first?.text;
  if (text) shapes.add(sqlShape(text));
  return query.apply(this, args);
} as typeof Client.prototype.query;

afterAll(() => {
  Client.prototype.query = query as typeof Client.prototype.query;
  mkdirSync(SQL_RECORD_DIR, { recursive: true });
  const file = basename(expect.getState().testPath ?? 'unknown');
  writeFileSync(join(SQL_RECORD_DIR, `${file}.json`), JSON.stringify([...shapes].sort(), null, 1));
});
