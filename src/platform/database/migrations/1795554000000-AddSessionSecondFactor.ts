import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/contract.md "Company policies and roles", `mfa_required`: whether a login session's person proved a second
 * factor (password + TOTP, a passkey, or the company's identity provider). Sessions opened before it are taken as
 * proven when they came through a passkey or a provider, or their account has TOTP on (its password login then
 * asked for a code).
 */
export class AddSessionSecondFactor1795554000000 implements MigrationInterface {
  name = 'AddSessionSecondFactor1795554000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "login_session" ADD COLUMN "second_factor" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`
      UPDATE "login_session" s SET "second_factor" = true
       WHERE s."method" IN ('sso', 'passkey')
          OR EXISTS (SELECT 1 FROM "employee" e WHERE e."id" = s."employee_id" AND e."totp_enabled_at" IS NOT NULL)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "login_session" DROP COLUMN "second_factor"`);
  }
}
