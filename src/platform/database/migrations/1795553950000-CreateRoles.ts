import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Roles (docs/contract.md "Company policies and roles"): named permission sets per company, and which member
 * holds which. A member's effective permissions are its own and its roles'. The composite keys make a role of
 * another company impossible to hold; a held role cannot be deleted (RESTRICT), and a removed membership lets
 * go of its roles (CASCADE).
 */
export class CreateRoles1795553950000 implements MigrationInterface {
  name = 'CreateRoles1795553950000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "role" (
        "id" SERIAL PRIMARY KEY,
        "company_id" integer NOT NULL REFERENCES "company" ("id") ON DELETE CASCADE,
        "name" text NOT NULL,
        "permissions" text[] NOT NULL,
        "created_at" timestamptz NOT NULL,
        "updated_at" timestamptz NOT NULL,
        CONSTRAINT "role_company_id_id" UNIQUE ("company_id", "id")
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "role_company_name" ON "role" ("company_id", lower("name"))`);
    await queryRunner.query(`
      CREATE TABLE "member_role" (
        "employee_id" integer NOT NULL,
        "company_id" integer NOT NULL,
        "role_id" integer NOT NULL,
        PRIMARY KEY ("employee_id", "company_id", "role_id"),
        FOREIGN KEY ("employee_id", "company_id") REFERENCES "membership" ("employee_id", "company_id")
          ON DELETE CASCADE,
        FOREIGN KEY ("company_id", "role_id") REFERENCES "role" ("company_id", "id") ON DELETE RESTRICT
      )`);
    await queryRunner.query(`CREATE INDEX "member_role_role" ON "member_role" ("role_id")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "member_role"`);
    await queryRunner.query(`DROP TABLE "role"`);
  }
}
