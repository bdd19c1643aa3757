import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateFiles1763700400000 implements MigrationInterface {
  name = 'CreateFiles1763700400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "file" (
        "id" uuid PRIMARY KEY,
        "company_id" integer NOT NULL REFERENCES "company" ("id") ON DELETE CASCADE,
        "employee_id" integer REFERENCES "employee" ("id") ON DELETE SET NULL,
        "name" varchar(255) NOT NULL CHECK (length("name") > 0),
        "content_type" varchar(255) NOT NULL,
        "size" bigint NOT NULL CHECK ("size" >= 0),
        "sha256" char(64) NOT NULL,
        "storage_key" varchar(255) NOT NULL UNIQUE,
        "created_at" timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX "file_company_id_idx" ON "file" ("company_id")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "file"`);
  }
}
