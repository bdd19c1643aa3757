import { MigrationInterface, QueryRunner } from 'typeorm';

/** Passkeys, their WebAuthn challenges and the passkey login's tickets (docs/contract.md, Passkeys and step-up). */
export class CreatePasskeys1795553200000 implements MigrationInterface {
  name = 'CreatePasskeys1795553200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "passkey" (
        "id" uuid PRIMARY KEY,
        "employee_id" integer NOT NULL REFERENCES "employee" ("id") ON DELETE CASCADE,
        "credential_id" varchar(1400) NOT NULL UNIQUE,
        "public_key" bytea NOT NULL,
        "counter" bigint NOT NULL CHECK ("counter" >= 0),
        "transports" jsonb NOT NULL,
        "name" varchar(64) NOT NULL,
        "created_at" timestamptz NOT NULL,
        "last_used_at" timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX "IDX_passkey_employee" ON "passkey" ("employee_id")`);
    await queryRunner.query(`
      CREATE TABLE "webauthn_challenge" (
        "id" uuid PRIMARY KEY,
        "challenge" varchar(128) NOT NULL,
        "purpose" varchar(16) NOT NULL CHECK ("purpose" IN ('registration', 'assertion')),
        "employee_id" integer REFERENCES "employee" ("id") ON DELETE CASCADE,
        "expires_at" timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX "IDX_webauthn_challenge_expires" ON "webauthn_challenge" ("expires_at")`);
    await queryRunner.query(`
      CREATE TABLE "login_ticket" (
        "ticket_hash" char(64) PRIMARY KEY,
        "employee_id" integer NOT NULL REFERENCES "employee" ("id") ON DELETE CASCADE,
        "expires_at" timestamptz NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "login_ticket"`);
    await queryRunner.query(`DROP TABLE "webauthn_challenge"`);
    await queryRunner.query(`DROP TABLE "passkey"`);
  }
}
