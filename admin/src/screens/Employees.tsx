import { useState } from 'react';
import { type CompanyEmployee, describeError, type Role } from '../api';
import { Alert, PermissionChips, useLoad } from '../components';
import { EditPermissions } from './EditPermissions';
import { NewEmployee } from './AddEmployee';
import { OpenInvitations } from './Invitations';
import { covers, holds } from '../permissions';
import { authed } from '../session';
import { ROLES_PATH } from './Roles';
import { EmployeeActions } from './StaffActions';

const PER_PAGE = 20;

interface Listed extends CompanyEmployee {
  mfa: boolean;
}

export function Employees({ held, selfId }: { held: string[]; selfId: number }) {
  const canRead = holds(held, 'users:read');
  const canWrite = holds(held, 'users:write');
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const { data, error, reload } = useLoad(() => {
    if (!canRead) return Promise.resolve({ data: [] as Listed[], total: 0 });
    const params = new URLSearchParams({ page: String(page), per_page: String(PER_PAGE) });
    if (search) params.set('q', search);
    return authed<{ data: Listed[]; total: number }>('GET', `/v1/users?${params}`);
  }, [canRead, page, search]);
  // The company's roles, to assign them (GET /v1/roles needs users:read; changing a member needs users:write).
  const roles = useLoad(
    () =>
      canRead && canWrite
        ? authed<{ data: Role[] }>('GET', ROLES_PATH).then((page) => page.data)
        : Promise.resolve(null),
    [canRead, canWrite],
  );
  const [editing, setEditing] = useState<number | null>(null);
  const [changed, setChanged] = useState<string | null>(null);
  const [invited, setInvited] = useState(0);
  const pages = data ? Math.max(1, Math.ceil(data.total / PER_PAGE)) : 1;

  return (
    <div className="stack">
      {canRead && (
        <section className="card" aria-labelledby="employees-title">
          <h2 id="employees-title">Employees</h2>
          {canWrite && (
            <p className="muted">
              You can change the permissions of someone who holds no more than you, and grant only what you hold. The
              company always keeps one holder of <code>*</code>.
            </p>
          )}
          {changed && <Alert tone="success">{changed}</Alert>}
          <form
            className="search-row"
            role="search"
            onSubmit={(e) => {
              e.preventDefault();
              setPage(1);
              setSearch(query.trim());
            }}
          >
            <label htmlFor="employee-search" className="visually-hidden">
              Search by e-mail or name
            </label>
            <input
              id="employee-search"
              type="search"
              placeholder="E-mail or name"
              maxLength={320}
              value={query}
              onChange={(e) => setQuery(e.target.value)}
            />
            <button className="button button-secondary" type="submit">
              Search
            </button>
          </form>
          {error ? (
            <Alert tone="error">{describeError(error)}</Alert>
          ) : !data ? (
            <p className="muted">Loading…</p>
          ) : (
            <ul className="rows" aria-label="Employees">
              {data.data.map((employee) => (
                <li key={employee.id} className="row row-wrap" data-employee-id={employee.id}>
                  <div className="row-main">
                    <div className="row-title">
                      {employee.name || employee.email}
                      {employee.id === selfId && <span className="badge">You</span>}
                      {employee.mfa && <span className="badge">TOTP</span>}
                    </div>
                    <div className="row-meta">
                      <span>{employee.email}</span>
                      {employee.roles?.map((role) => (
                        <span key={role.id} className="badge">
                          {role.name}
                        </span>
                      ))}
                      <PermissionChips permissions={employee.permissions} />
                    </div>
                  </div>
                  {canWrite && covers(held, employee.permissions) && (
                    <EmployeeActions
                      employee={employee}
                      self={employee.id === selfId}
                      onChanged={(text) => {
                        setChanged(text);
                        reload();
                      }}
                    >
                      {editing !== employee.id && (
                        <button
                          className="button button-secondary"
                          type="button"
                          aria-label={`Change permissions of ${employee.name || employee.email}`}
                          onClick={() => setEditing(employee.id)}
                        >
                          Permissions
                        </button>
                      )}
                    </EmployeeActions>
                  )}
                  {editing === employee.id && (
                    <EditPermissions
                      employee={employee}
                      held={held}
                      roles={roles.data}
                      onDone={(saved) => {
                        setEditing(null);
                        if (saved) reload();
                      }}
                    />
                  )}
                </li>
              ))}
            </ul>
          )}
          {data && (
            <nav className="button-row pager" aria-label="Pages of employees">
              <button
                className="button button-secondary"
                type="button"
                disabled={page <= 1}
                onClick={() => setPage(page - 1)}
              >
                Previous
              </button>
              <span className="muted">
                Page {page} of {pages} ({data.total} {data.total === 1 ? 'employee' : 'employees'})
              </span>
              <button
                className="button button-secondary"
                type="button"
                disabled={page >= pages}
                onClick={() => setPage(page + 1)}
              >
                Next
              </button>
            </nav>
          )}
        </section>
      )}
      {canWrite && (
        <section className="card" aria-labelledby="new-title">
          <h2 id="new-title">Invite or add someone</h2>
          <NewEmployee
            held={held}
            onDone={(mode) => {
              reload();
              if (mode === 'invite') setInvited((v) => v + 1);
            }}
          />
        </section>
      )}
      {canRead && (
        <section className="card" aria-labelledby="invitations-title">
          <h2 id="invitations-title">Open invitations</h2>
          <OpenInvitations canWrite={canWrite} version={invited} />
        </section>
      )}
    </div>
  );
}
