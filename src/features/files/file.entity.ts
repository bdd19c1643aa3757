import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

// PostgreSQL returns bigint as a string, so that no value silently loses precision; sizes stay far below 2^53.
const BIGINT_AS_NUMBER = {
  to: (value: number) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

/** One stored file of a company: what the client called it and what it is; the content is in the FileStorage. */
@Entity({ name: 'file' })
export class StoredFile {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Index()
  @Column({ name: 'company_id', type: 'integer' })
  companyId: number;

  /** Who uploaded it; kept when the employee is deleted. */
  @Column({ name: 'employee_id', type: 'integer', nullable: true })
  employeeId: number | null;

  /** The client's name, sanitized; for display only, never a path. */
  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ name: 'content_type', type: 'varchar', length: 255 })
  contentType: string;

  @Column({ type: 'bigint', transformer: BIGINT_AS_NUMBER })
  size: number;

  @Column({ type: 'char', length: 64 })
  sha256: string;

  /** Where the FileStorage keeps the content (`<company id>/<id>`). */
  @Column({ name: 'storage_key', type: 'varchar', length: 255, unique: true })
  storageKey: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
