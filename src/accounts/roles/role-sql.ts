/**
 * The role tables as other folders' single statements may reach them: a credential look-up reads a member's
 * effective permissions and roles with the credential, a staff list shows them. Their names are written only in
 * src/accounts/roles/; changes go through role-records.ts.
 */

/**
 * The effective permissions of the membership row `<alias>` (columns employee_id, company_id, permissions): its
 * own and those of every role it holds, unique and sorted; NULL when `<alias>.permissions` is NULL (the LEFT
 * JOIN of a removed member), so a removed member stays refused. The caller normalizes `*` (normalizeGrants).
 */
export function effectivePermissionsColumn(alias: string): string {
  return `CASE WHEN ${alias}.permissions IS NULL THEN NULL ELSE ARRAY(
      SELECT g FROM unnest(${alias}.permissions) AS g
      UNION SELECT unnest(r.permissions) FROM member_role mr JOIN role r ON r.id = mr.role_id
       WHERE mr.employee_id = ${alias}.employee_id AND mr.company_id = ${alias}.company_id
      ORDER BY 1) END`;
}

/** The roles the membership row `<alias>` holds, as a JSON array of `{"id", "name"}` by id (`[]` for none). */
export function memberRolesColumn(alias: string): string {
  return `COALESCE((SELECT json_agg(json_build_object('id', r.id, 'name', r.name) ORDER BY r.id)
      FROM member_role mr JOIN role r ON r.id = mr.role_id
     WHERE mr.employee_id = ${alias}.employee_id AND mr.company_id = ${alias}.company_id), '[]'::json)`;
}

/** A role as a member's row shows it. */
export interface RoleRef {
  id: number;
  name: string;
}

/** The column {@link memberRolesColumn} reads back: drivers hand JSON over parsed (pg) or as text (some pools). */
export function parseRoleRefs(value: unknown): RoleRef[] {
  const list: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  if (!Array.isArray(list)) return [];
  return list.map((item: { id: number; name: string }) => ({ id: Number(item.id), name: String(item.name) }));
}
