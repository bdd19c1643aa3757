import { type FormEvent, useId, useState } from 'react';
import { type CompanyEmployee, describeError, type Role } from '../api';
import { Alert, PermissionPicker } from '../components';
import { ALL, covers } from '../permissions';
import { authed } from '../session';

/**
 * The list shows a member's effective permissions (its own and its roles'); its own are what is left once the
 * roles' are taken out, so saving does not copy a role's permissions into the member's own.
 */
export function ownPermissions(employee: CompanyEmployee, roles: readonly Role[] | null): string[] {
  const held = new Set(employee.roles?.map((r) => r.id) ?? []);
  const fromRoles = new Set((roles ?? []).filter((r) => held.has(r.id)).flatMap((r) => r.permissions));
  if (fromRoles.has(ALL)) return [];
  return employee.permissions.filter((p) => !fromRoles.has(p));
}

/**
 * One member's own permissions and, when the company's roles are known (`users:read`), its roles: the roles the
 * user may hand out (it holds all their permissions) as toggles; a role beyond the user stays as it is.
 */
export function EditPermissions({
  employee,
  held,
  roles,
  onDone,
}: {
  employee: CompanyEmployee;
  held: string[];
  roles: Role[] | null;
  onDone(saved: boolean): void;
}) {
  const id = useId();
  const [permissions, setPermissions] = useState<string[]>(() => ownPermissions(employee, roles));
  const [roleIds, setRoleIds] = useState<number[]>(employee.roles?.map((r) => r.id) ?? []);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const who = employee.name || employee.email;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      // Without the company's roles the page cannot show them: left out, the member's roles stay.
      const body = roles ? { permissions, roles: roleIds } : { permissions };
      await authed('PUT', `/v1/users/${employee.id}/permissions`, body);
      onDone(true);
    } catch (e) {
      setError(describeError(e));
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} className="stack-tight edit-panel">
      {error && <Alert tone="error">{error}</Alert>}
      <PermissionPicker
        legend={roles?.length ? `Own permissions of ${who}` : `Permissions of ${who}`}
        held={held}
        value={permissions}
        onChange={setPermissions}
      />
      {roles && roles.length > 0 && (
        <fieldset className="permission-picker">
          <legend>Roles of {who}</legend>
          <div className="permission-options">
            {roles.map((role) => (
              <label key={role.id} className="permission-option" htmlFor={`${id}-role-${role.id}`}>
                <input
                  id={`${id}-role-${role.id}`}
                  type="checkbox"
                  checked={roleIds.includes(role.id)}
                  disabled={!covers(held, role.permissions)}
                  onChange={(e) =>
                    setRoleIds(e.target.checked ? [...roleIds, role.id] : roleIds.filter((r) => r !== role.id))
                  }
                />
                <span>{role.name}</span>
              </label>
            ))}
          </div>
        </fieldset>
      )}
      <div className="button-row">
        <button className="button button-primary" type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save permissions'}
        </button>
        <button className="button button-secondary" type="button" onClick={() => onDone(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
