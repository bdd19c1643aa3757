import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Invitations, password-reset codes and TOTP (issue 17). Every code is stored only as the SHA-256 of a 256-bit
 * random value (like refresh tokens); the TOTP secret is stored encrypted; `totp_last_step` is the time step of
 * the last accepted one-time code, so a code works once even across instances (a conditional UPDATE on it).
 */
export class CreateStaffAccountTables1795552800000 implements MigrationInterface {
  name = 'CreateStaffAccountTables1795552800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE "employee"
        ADD COLUMN "totp_secret" text,
        ADD COLUMN "totp_enabled_at" timestamptz,
        ADD COLUMN "totp_last_step" bigint`);
    await queryRunner.query(`
      CREATE TABLE "recovery_code" (
        "employee_id" integer NOT NULL REFERENCES "employee" ("id") ON DELETE CASCADE,
        "code_hash" char(64) NOT NULL,
        "used_at" timestamptz,
        PRIMARY KEY ("employee_id", "code_hash")
      )`);
    await queryRunner.query(`
      CREATE TABLE "invitation" (
        "id" uuid PRIMARY KEY,
        "company_id" integer NOT NULL REFERENCES "company" ("id") ON DELETE CASCADE,
        "email" varchar(320) NOT NULL,
        "permissions" text[] NOT NULL,
        "code_hash" char(64) NOT NULL UNIQUE,
        "created_by_id" integer REFERENCES "employee" ("id") ON DELETE SET NULL,
        "created_at" timestamptz NOT NULL,
        "expires_at" timestamptz NOT NULL,
        "accepted_at" timestamptz,
        "revoked_at" timestamptz
      )`);
    await queryRunner.query(
      `CREATE INDEX "invitation_company_id_created_at_idx" ON "invitation" ("company_id", "created_at")`,
    );
    await queryRunner.query(`
      CREATE TABLE "password_reset" (
        "id" uuid PRIMARY KEY,
        "employee_id" integer NOT NULL REFERENCES "employee" ("id") ON DELETE CASCADE,
        "company_id" integer NOT NULL REFERENCES "company" ("id") ON DELETE CASCADE,
        "code_hash" char(64) NOT NULL UNIQUE,
        "created_by_id" integer REFERENCES "employee" ("id") ON DELETE SET NULL,
        "created_at" timestamptz NOT NULL,
        "expires_at" timestamptz NOT NULL,
        "used_at" timestamptz
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "password_reset"`);
    await queryRunner.query(`DROP TABLE "invitation"`);
    await queryRunner.query(`DROP TABLE "recovery_code"`);
    await queryRunner.query(`
      ALTER TABLE "employee" DROP COLUMN "totp_secret", DROP COLUMN "totp_enabled_at", DROP COLUMN "totp_last_step"`);
  }
}
