import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateSessionsTokensApiKeys1763700100000 implements MigrationInterface {
  name = 'CreateSessionsTokensApiKeys1763700100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "login_session" (
        "id" uuid PRIMARY KEY,
        "employee_id" integer NOT NULL REFERENCES "employee" ("id") ON DELETE CASCADE,
        "company_id" integer NOT NULL REFERENCES "company" ("id") ON DELETE CASCADE,
        "created_at" timestamptz NOT NULL,
        "last_used_at" timestamptz NOT NULL,
        "ip" varchar(64),
        "user_agent" varchar(512),
        "ended_at" timestamptz,
        "end_reason" varchar(32)
      )`);
    await queryRunner.query(`CREATE INDEX "login_session_employee_id_idx" ON "login_session" ("employee_id")`);
    await queryRunner.query(`
      CREATE TABLE "issued_token" (
        "id" uuid PRIMARY KEY,
        "session_id" uuid NOT NULL REFERENCES "login_session" ("id") ON DELETE CASCADE,
        "company_id" integer NOT NULL REFERENCES "company" ("id") ON DELETE CASCADE,
        "token_hash" char(64) NOT NULL UNIQUE,
        "refresh_hash" char(64) NOT NULL UNIQUE,
        "issued_at" timestamptz NOT NULL,
        "expires_at" timestamptz NOT NULL,
        "revoked_at" timestamptz,
        "revoke_reason" varchar(32),
        "refresh_used_at" timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX "issued_token_session_id_idx" ON "issued_token" ("session_id")`);
    await queryRunner.query(`
      CREATE TABLE "api_key" (
        "id" uuid PRIMARY KEY,
        "key_id" varchar(40) NOT NULL UNIQUE,
        "secret_hash" char(64) NOT NULL,
        "employee_id" integer NOT NULL REFERENCES "employee" ("id") ON DELETE CASCADE,
        "company_id" integer NOT NULL REFERENCES "company" ("id") ON DELETE CASCADE,
        "name" varchar(100) NOT NULL,
        "permissions" text[] NOT NULL,
        "created_at" timestamptz NOT NULL,
        "last_used_at" timestamptz,
        "revoked_at" timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX "api_key_company_id_idx" ON "api_key" ("company_id")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "api_key"`);
    await queryRunner.query(`DROP TABLE "issued_token"`);
    await queryRunner.query(`DROP TABLE "login_session"`);
  }
}
