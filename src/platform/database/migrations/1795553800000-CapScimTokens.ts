import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/contract.md "Nobody grants more than they hold": a SCIM token carries the permissions its creator held
 * when it was made, and never more than the creator holds now (read at each request, as for API keys). Tokens
 * made before this migration get what their creator holds in the token's company today: none when the creator
 * is gone or suspended, `sso:manage` alone for a token an `sso:manage` holder made (it can no longer provision).
 */
export class CapScimTokens1795553800000 implements MigrationInterface {
  name = 'CapScimTokens1795553800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "scim_token" ADD COLUMN "permissions" text[] NOT NULL DEFAULT '{}'`);
    await queryRunner.query(`
      UPDATE "scim_token" t SET "permissions" = m."permissions"
        FROM "membership" m
       WHERE m."employee_id" = t."created_by" AND m."company_id" = t."company_id" AND m."suspended_at" IS NULL`);
    await queryRunner.query(`ALTER TABLE "scim_token" ALTER COLUMN "permissions" DROP DEFAULT`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "scim_token" DROP COLUMN "permissions"`);
  }
}
