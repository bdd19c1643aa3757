import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/contract.md "Company policies and roles": one row per company that changed its policy (the defaults
 * otherwise), owned by src/accounts/company-policy/. The bounds are the contract's: 1–14 session days, an idle
 * time-out of 15 minutes to 7 days.
 */
export class CreateCompanyPolicy1795553900000 implements MigrationInterface {
  name = 'CreateCompanyPolicy1795553900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "company_policy" (
        "company_id" integer PRIMARY KEY REFERENCES "company" ("id") ON DELETE CASCADE,
        "mfa_required" boolean NOT NULL DEFAULT false,
        "session_days" smallint NOT NULL DEFAULT 14 CHECK ("session_days" BETWEEN 1 AND 14),
        "idle_timeout_minutes" integer CHECK ("idle_timeout_minutes" BETWEEN 15 AND 10080),
        "ip_allowlist" text[] NOT NULL DEFAULT '{}',
        "updated_at" timestamptz NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "company_policy"`);
  }
}
