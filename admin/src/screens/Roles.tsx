import { type FormEvent, useState } from 'react';
import { describeError, type Role } from '../api';
import { Alert, ConfirmAction, PermissionChips, PermissionPicker, useLoad } from '../components';
import { covers, holds } from '../permissions';
import { authed } from '../session';

/** Every role on one page: a company has a handful (the list's largest page). */
export const ROLES_PATH = '/v1/roles?per_page=100';

/** Name and permissions of a new role or of one being changed; the API takes both whole. */
function RoleForm({ held, role, onDone }: { held: string[]; role?: Role; onDone(message: string | null): void }) {
  const [name, setName] = useState(role?.name ?? '');
  const [permissions, setPermissions] = useState<string[]>(role?.permissions ?? []);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const prefix = role ? `role-${role.id}` : 'new-role';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = { name: name.trim(), permissions };
      const saved = role
        ? await authed<Role>('PUT', `/v1/roles/${role.id}`, body)
        : await authed<Role>('POST', '/v1/roles', body);
      if (!role) {
        setName('');
        setPermissions([]);
      }
      onDone(
        role
          ? `Role “${saved.name}” is saved; its holders have its permissions now.`
          : `Role “${saved.name}” is created.`,
      );
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} className={role ? 'stack-tight edit-panel' : 'stack-tight'}>
      {error && <Alert tone="error">{error}</Alert>}
      <div className="field">
        <label htmlFor={`${prefix}-name`}>{role ? 'Name' : 'Role name'}</label>
        <input id={`${prefix}-name`} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
      </div>
      <PermissionPicker
        legend={role ? `Permissions of ${role.name}` : 'Permissions of the role'}
        held={held}
        value={permissions}
        onChange={setPermissions}
      />
      <div className="button-row">
        <button className="button button-primary" type="submit" disabled={busy}>
          {busy ? 'Saving…' : role ? 'Save role' : 'Create role'}
        </button>
        {role && (
          <button className="button button-secondary" type="button" onClick={() => onDone(null)}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

/**
 * The company's roles (docs/contract.md "Company policies and roles"): named permission sets a member holds on
 * top of its own permissions. Listed with `users:read`; created, changed and deleted with `users:write`, only
 * with permissions the user holds (a role holding more is shown but not offered for change).
 */
export function Roles({ held }: { held: string[] }) {
  const canRead = holds(held, 'users:read');
  const canWrite = holds(held, 'users:write');
  const { data, error, reload } = useLoad(
    () => (canRead ? authed<{ data: Role[]; total: number }>('GET', ROLES_PATH) : Promise.resolve(null)),
    [canRead],
  );
  const [editing, setEditing] = useState<number | null>(null);
  const [armed, setArmed] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  const [rowError, setRowError] = useState<{ id: number; text: string } | null>(null);
  const [changed, setChanged] = useState<string | null>(null);

  const done = (message: string | null) => {
    setEditing(null);
    if (message) {
      setChanged(message);
      reload();
    }
  };

  const remove = async (role: Role) => {
    setBusy(true);
    setRowError(null);
    try {
      await authed('DELETE', `/v1/roles/${role.id}`);
      setArmed(null);
      done(`Role “${role.name}” is deleted.`);
    } catch (e) {
      setArmed(null);
      setRowError({ id: role.id, text: describeError(e) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="stack">
      {canRead && (
        <section className="card" aria-labelledby="roles-title">
          <h2 id="roles-title">Roles</h2>
          <p className="muted">
            A member has its own permissions and those of every role it holds. Changing a role changes what each of its
            holders may do at once; assign roles on the Employees screen.
          </p>
          {changed && <Alert tone="success">{changed}</Alert>}
          {error ? (
            <Alert tone="error">{describeError(error)}</Alert>
          ) : !data ? (
            <p className="muted">Loading…</p>
          ) : data.data.length === 0 ? (
            <p className="muted">No roles yet.</p>
          ) : (
            <ul className="rows" aria-label="Roles">
              {data.data.map((role) => (
                <li key={role.id} className="row row-wrap" data-role-id={role.id}>
                  <div className="row-main">
                    <div className="row-title">{role.name}</div>
                    <div className="row-meta">
                      <span>
                        {role.holders === 0
                          ? 'Nobody holds it'
                          : `${role.holders} ${role.holders === 1 ? 'member' : 'members'}`}
                      </span>
                      <PermissionChips permissions={role.permissions} />
                    </div>
                  </div>
                  {canWrite && covers(held, role.permissions) && (
                    <div className="stack-tight row-side">
                      {rowError?.id === role.id && <Alert tone="error">{rowError.text}</Alert>}
                      <div className="row-actions">
                        {editing !== role.id && (
                          <button
                            className="button button-secondary"
                            type="button"
                            aria-label={`Edit role ${role.name}`}
                            onClick={() => setEditing(role.id)}
                          >
                            Edit
                          </button>
                        )}
                        <ConfirmAction
                          armed={armed === role.id}
                          busy={busy && armed === role.id}
                          disabled={busy || (armed !== null && armed !== role.id)}
                          label="Delete"
                          busyLabel="Deleting…"
                          ariaLabel={`Delete role ${role.name}`}
                          onArm={() => (setArmed(role.id), setRowError(null))}
                          onCancel={() => setArmed(null)}
                          onConfirm={() => void remove(role)}
                        />
                      </div>
                    </div>
                  )}
                  {editing === role.id && <RoleForm held={held} role={role} onDone={done} />}
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      {canWrite && (
        <section className="card" aria-labelledby="new-role-title">
          <h2 id="new-role-title">New role</h2>
          <RoleForm held={held} onDone={done} />
        </section>
      )}
    </div>
  );
}
