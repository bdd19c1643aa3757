import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How a session signed in (docs/contract.md: sessions list `method`) and when it last proved its person (step-up,
 * "Passkeys and step-up"). A session opened before this column was a password login proven at its login.
 */
export class AddSessionLoginMethod1795553000000 implements MigrationInterface {
  name = 'AddSessionLoginMethod1795553000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE "login_session"
        ADD COLUMN "method" varchar(16) NOT NULL DEFAULT 'password'
          CHECK ("method" IN ('password', 'sso', 'passkey')),
        ADD COLUMN "proven_at" timestamptz`);
    await queryRunner.query(`UPDATE "login_session" SET "proven_at" = "created_at"`);
    await queryRunner.query(`ALTER TABLE "login_session" ALTER COLUMN "proven_at" SET NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "login_session" DROP COLUMN "proven_at", DROP COLUMN "method"`);
  }
}
