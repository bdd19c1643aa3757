import type { EntityManager } from 'typeorm';
import { Company } from './company.entity';

/**
 * What other folders change or read in the company table, each inside the caller's transaction (its
 * EntityManager). Single statements that must read a company with other tables join through company-sql.ts.
 */

/**
 * One change at a time per company (permissions, removals): two owners demoting or removing each other at once
 * must not both see the other as the remaining `*` holder. NO KEY UPDATE still lets rows that reference the
 * company be inserted.
 */
export async function lockCompanyForChange(manager: EntityManager, companyId: number): Promise<void> {
  await manager.query('SELECT id FROM company WHERE id = $1 FOR NO KEY UPDATE', [companyId]);
}

/** A company's id and name; throws when there is none (the caller checked the membership that names it). */
export async function companyRef(manager: EntityManager, companyId: number): Promise<{ id: number; name: string }> {
  const [row] = await manager.query<Array<{ name: string }>>('SELECT name FROM company WHERE id = $1', [companyId]);
  if (!row) throw new Error(`company ${companyId} not found`);
  return { id: companyId, name: row.name };
}

export function findCompany(manager: EntityManager, companyId: number): Promise<Company | null> {
  return manager.findOneBy(Company, { id: companyId });
}

export function countCompanies(manager: EntityManager): Promise<number> {
  return manager.count(Company);
}

/** New companies by name (the demo data). */
export function insertCompanies(manager: EntityManager, names: readonly string[]): Promise<Company[]> {
  return manager.save(names.map((name) => manager.create(Company, { name })));
}

/** Every company, for the operator's list. */
export function listAllCompanies(manager: EntityManager): Promise<Array<{ id: number; name: string }>> {
  return manager.query('SELECT id, name FROM company ORDER BY id');
}
