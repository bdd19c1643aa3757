import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Company single sign-on (issue 25): one OpenID Connect connection per company (its client secret sealed), the
 * e-mail domains it claims (a domain belongs to one company at most: the primary key), the flows under way
 * (state, nonce and PKCE verifier, in the database so that any instance finishes a flow another started) and
 * the one-time codes handed to the browser. Codes and states are stored as SHA-256 only. A session opened
 * through a provider keeps its issuer, `sub` and `sid`, which back-channel logout names.
 */
export class CreateSsoTables1795553100000 implements MigrationInterface {
  name = 'CreateSsoTables1795553100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "sso_connection" (
        "company_id" integer PRIMARY KEY REFERENCES "company" ("id") ON DELETE CASCADE,
        "issuer" varchar(512) NOT NULL,
        "client_id" varchar(512) NOT NULL,
        "client_secret" text NOT NULL,
        "enforced" boolean NOT NULL DEFAULT false,
        "jit_enabled" boolean NOT NULL DEFAULT false,
        "jit_permissions" text[] NOT NULL DEFAULT '{}',
        "created_at" timestamptz NOT NULL,
        "updated_at" timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX "sso_connection_issuer_idx" ON "sso_connection" ("issuer", "client_id")`);
    await queryRunner.query(`
      CREATE TABLE "sso_email_domain" (
        "domain" varchar(253) PRIMARY KEY,
        "company_id" integer NOT NULL REFERENCES "sso_connection" ("company_id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE INDEX "sso_email_domain_company_idx" ON "sso_email_domain" ("company_id")`);
    await queryRunner.query(`
      CREATE TABLE "sso_flow" (
        "state_hash" char(64) PRIMARY KEY,
        "company_id" integer NOT NULL REFERENCES "company" ("id") ON DELETE CASCADE,
        "nonce" varchar(64) NOT NULL,
        "code_verifier" varchar(128) NOT NULL,
        "return_to" varchar(2048) NOT NULL,
        "redirect_uri" varchar(2048) NOT NULL,
        "expires_at" timestamptz NOT NULL,
        "used_at" timestamptz
      )`);
    await queryRunner.query(`
      CREATE TABLE "sso_code" (
        "code_hash" char(64) PRIMARY KEY,
        "company_id" integer NOT NULL REFERENCES "company" ("id") ON DELETE CASCADE,
        "employee_id" integer NOT NULL REFERENCES "employee" ("id") ON DELETE CASCADE,
        "issuer" varchar(512) NOT NULL,
        "sub" varchar(255) NOT NULL,
        "sid" varchar(255),
        "expires_at" timestamptz NOT NULL,
        "used_at" timestamptz
      )`);
    await queryRunner.query(`
      ALTER TABLE "login_session"
        ADD COLUMN "sso_issuer" varchar(512),
        ADD COLUMN "sso_sub" varchar(255),
        ADD COLUMN "sso_sid" varchar(255)`);
    await queryRunner.query(
      `CREATE INDEX "login_session_sso_idx" ON "login_session" ("sso_issuer", "sso_sid") WHERE "sso_issuer" IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "login_session_sso_idx"`);
    await queryRunner.query(
      `ALTER TABLE "login_session" DROP COLUMN "sso_sid", DROP COLUMN "sso_sub", DROP COLUMN "sso_issuer"`,
    );
    await queryRunner.query(`DROP TABLE "sso_code"`);
    await queryRunner.query(`DROP TABLE "sso_flow"`);
    await queryRunner.query(`DROP TABLE "sso_email_domain"`);
    await queryRunner.query(`DROP TABLE "sso_connection"`);
  }
}
