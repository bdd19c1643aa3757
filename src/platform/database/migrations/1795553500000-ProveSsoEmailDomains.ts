import { randomBytes } from 'node:crypto';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * E-mail domains are proven, not claimed (docs/contract.md "Company single sign-on"): each listed domain gets a
 * challenge token to publish as a DNS TXT record and, once the record is seen, `verified_at`. Several companies
 * may list a domain while nobody has proven it; a proven domain belongs to one company (the partial unique
 * index), and the other companies' claims on it are dropped when it is proven. Existing domains start
 * unverified: until their company publishes the record, their e-mails sign in nowhere through SSO.
 *
 * `updated_by` is the connection's last editor: JIT grants at each sign-in are capped by what that person holds
 * then ("Nobody grants more than they hold"); unknown for connections saved before this migration (no grant).
 */
export class ProveSsoEmailDomains1795553500000 implements MigrationInterface {
  name = 'ProveSsoEmailDomains1795553500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "sso_email_domain" DROP CONSTRAINT "sso_email_domain_pkey"`);
    await queryRunner.query(
      `ALTER TABLE "sso_email_domain" ADD COLUMN "challenge" varchar(64), ADD COLUMN "verified_at" timestamptz`,
    );
    const rows = (await queryRunner.query(`SELECT company_id, domain FROM "sso_email_domain"`)) as Array<{
      company_id: number;
      domain: string;
    }>;
    for (const row of rows) {
      await queryRunner.query(`UPDATE "sso_email_domain" SET "challenge" = $3 WHERE company_id = $1 AND domain = $2`, [
        row.company_id,
        row.domain,
        `staff-auth-domain-verification=${randomBytes(18).toString('base64url')}`,
      ]);
    }
    await queryRunner.query(`ALTER TABLE "sso_email_domain" ALTER COLUMN "challenge" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "sso_email_domain" ADD PRIMARY KEY ("company_id", "domain")`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "sso_email_domain_verified_key" ON "sso_email_domain" ("domain") WHERE "verified_at" IS NOT NULL`,
    );
    await queryRunner.query(`CREATE INDEX "sso_email_domain_domain_idx" ON "sso_email_domain" ("domain")`);
    await queryRunner.query(
      `ALTER TABLE "sso_connection" ADD COLUMN "updated_by" integer REFERENCES "employee" ("id") ON DELETE SET NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "sso_connection" DROP COLUMN "updated_by"`);
    await queryRunner.query(`DROP INDEX "sso_email_domain_domain_idx"`);
    await queryRunner.query(`DROP INDEX "sso_email_domain_verified_key"`);
    await queryRunner.query(`ALTER TABLE "sso_email_domain" DROP CONSTRAINT "sso_email_domain_pkey"`);
    // Back to one company per domain: a proven claim wins, then the oldest company.
    await queryRunner.query(`
      DELETE FROM "sso_email_domain" d USING "sso_email_domain" o
       WHERE d.domain = o.domain AND d.company_id <> o.company_id
         AND (o.verified_at IS NOT NULL AND d.verified_at IS NULL
              OR (o.verified_at IS NULL) = (d.verified_at IS NULL) AND o.company_id < d.company_id)`);
    await queryRunner.query(`ALTER TABLE "sso_email_domain" DROP COLUMN "verified_at", DROP COLUMN "challenge"`);
    await queryRunner.query(`ALTER TABLE "sso_email_domain" ADD PRIMARY KEY ("domain")`);
  }
}
