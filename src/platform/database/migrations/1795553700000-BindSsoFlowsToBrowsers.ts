import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Single sign-on bound to the browser that started it (issue 34): a flow and the one-time code it ends in keep
 * the SHA-256 of the browser's binding cookie, and neither finishes in another browser (a planted or leaked code).
 * Flows under way when this runs have none and cannot finish: they live 10 minutes and are started again.
 *
 * Back-channel logout tokens' `jti`, per issuer, until the token's `iat` window has passed: a replayed token is
 * refused instead of ending a later session.
 */
export class BindSsoFlowsToBrowsers1795553700000 implements MigrationInterface {
  name = 'BindSsoFlowsToBrowsers1795553700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "sso_flow" ADD COLUMN "browser_hash" char(64)`);
    await queryRunner.query(`ALTER TABLE "sso_code" ADD COLUMN "browser_hash" char(64)`);
    await queryRunner.query(`
      CREATE TABLE "sso_logout_jti" (
        "issuer" varchar(512) NOT NULL,
        "jti" varchar(255) NOT NULL,
        "expires_at" timestamptz NOT NULL,
        PRIMARY KEY ("issuer", "jti")
      )`);
    await queryRunner.query(`CREATE INDEX "sso_logout_jti_expires_idx" ON "sso_logout_jti" ("expires_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "sso_logout_jti"`);
    await queryRunner.query(`ALTER TABLE "sso_code" DROP COLUMN "browser_hash"`);
    await queryRunner.query(`ALTER TABLE "sso_flow" DROP COLUMN "browser_hash"`);
  }
}
