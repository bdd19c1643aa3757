import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SCIM 2.0 provisioning (docs/contract.md, "Other systems plug in"): the bearer tokens an identity provider
 * provisions a company's staff with (stored as their SHA-256 only), and the membership's suspension, which a
 * SCIM `active: false` sets and `active: true` clears. A suspended membership keeps its permissions but counts
 * as no membership for logins, switches and credentials.
 */
export class CreateScimTokens1795553300000 implements MigrationInterface {
  name = 'CreateScimTokens1795553300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "scim_token" (
        "id" uuid PRIMARY KEY,
        "company_id" integer NOT NULL REFERENCES "company" ("id") ON DELETE CASCADE,
        "name" text NOT NULL,
        "token_hash" char(64) NOT NULL,
        "created_by" integer REFERENCES "employee" ("id") ON DELETE SET NULL,
        "created_at" timestamptz NOT NULL,
        "last_used_at" timestamptz
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "scim_token_hash" ON "scim_token" ("token_hash")`);
    await queryRunner.query(`CREATE INDEX "scim_token_company" ON "scim_token" ("company_id", "created_at")`);
    await queryRunner.query(`ALTER TABLE "membership" ADD COLUMN "suspended_at" timestamptz`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "membership" DROP COLUMN "suspended_at"`);
    await queryRunner.query(`DROP TABLE "scim_token"`);
  }
}
