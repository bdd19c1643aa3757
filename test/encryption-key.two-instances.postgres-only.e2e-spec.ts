import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { TotpSecretBox } from '../src/platform/keys/secret-boxes';
import { type ProvisionedDatabase, provisionDatabase } from './support/databases';
import { ManualClock } from './support/manual-clock';
import { startTestApp, type TestApp } from './support/test-app';

const ENCRYPTION_KEY = randomBytes(32).toString('base64');

/**
 * docs/contract.md "Other systems plug in": setting ENCRYPTION_KEY re-encrypts what is stored, at start, once,
 * whichever instance gets there. Two instances on one PostgreSQL database (the embedded database admits one
 * process, so this is PostgreSQL's only); the single-instance cases are in encryption-key.e2e-spec.ts.
 */
describe('ENCRYPTION_KEY set on two instances starting together', () => {
  let database: ProvisionedDatabase;
  const clock = new ManualClock('2026-11-25T09:00:00Z');

  beforeAll(async () => {
    database = await provisionDatabase();
  });
  afterAll(() => database?.drop());

  it('two instances starting together re-encrypt 1,200 secrets between them, each exactly once', async () => {
    const plains = Array.from({ length: 1200 }, (_, i) => `SECRET${String(i).padStart(6, '0')}AAAAAAAAAAAAAAAAAAAA`);
    const before = await startTestApp({ database, clock });
    try {
      const box = before.app.get(TotpSecretBox);
      await before.app.get(DataSource).query(
        `INSERT INTO employee (email, name, password_hash, totp_secret)
         SELECT 'many' || n || '@example.test', 'Many', 'x', s FROM unnest($1::text[]) WITH ORDINALITY AS u(s, n)`,
        [plains.map((plain) => box.seal(plain))],
      );
    } finally {
      await before.close();
    }
    const [a, b] = await Promise.all([
      startTestApp({ database, clock, env: { ENCRYPTION_KEY } }),
      startTestApp({ database, clock, env: { ENCRYPTION_KEY } }),
    ]);
    try {
      const rows: Array<{ email: string; totp_secret: string }> = await a.app
        .get(DataSource)
        .query(`SELECT email, totp_secret FROM employee WHERE email LIKE 'many%' ORDER BY id`);
      const newBox = a.app.get(TotpSecretBox);
      expect(rows.filter((row) => !row.totp_secret.startsWith(newBox.currentPrefix))).toEqual([]);
      expect(rows.map((row) => newBox.open(row.totp_secret)?.plain)).toEqual(plains);
      const counted = (app: TestApp) =>
        [...app.logs.text.matchAll(/"resealed":(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
      expect(counted(a) + counted(b)).toBe(1200);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
