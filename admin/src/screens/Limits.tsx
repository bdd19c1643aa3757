import { type CompanyRateLimits, describeError } from '../api';
import { Alert, formatDateTime, relative, useLoad } from '../components';
import { authed } from '../session';

const scope = (method: string, group: string) =>
  `${method === '*' ? 'Every method' : method} · ${group === '*' ? 'every group' : group}`;

function credentialName(entry: CompanyRateLimits['limited'][number], mine: string | null): string {
  if (entry.kind === 'api_key') return `API key ${entry.credential_id.slice(0, 8)}… of ${entry.employee.email}`;
  return entry.credential_id === mine ? `Your login (${entry.employee.email})` : `A login of ${entry.employee.email}`;
}

/**
 * The company's rate limits, read-only (docs/contract.md, "Rate limits a client can plan with and an operator can
 * steer"): who was refused in the last hour, the operator's overrides and quotas, and the table. Overrides are set with the
 * operator CLI, not here.
 */
export function Limits({ sessionId }: { sessionId: string | null }) {
  const { data, error, reload } = useLoad(() => authed<CompanyRateLimits>('GET', '/v1/ratelimits/company'), []);
  if (error) return <Alert tone="error">{describeError(error)}</Alert>;
  if (!data) return <p className="muted">Loading…</p>;
  const changed = data.limits.filter((l) => l.effective_capacity !== l.capacity);

  return (
    <div className="stack">
      <section className="card" aria-labelledby="limited-title">
        <div className="card-header">
          <div>
            <h2 id="limited-title">Refused in the last hour</h2>
            <p className="muted">
              Credentials of this company that hit a rate limit on the server that answered (each server keeps its own
              last hour). A shadow override only counts what it would have refused.
            </p>
          </div>
          <button className="button button-secondary" type="button" onClick={reload}>
            Refresh
          </button>
        </div>
        {data.limited.length === 0 ? (
          <p className="muted">No credential of this company was refused in the last hour.</p>
        ) : (
          <ul className="rows" aria-label="Credentials refused in the last hour">
            {data.limited.map((entry) => (
              <li key={`${entry.kind}|${entry.credential_id}|${entry.method}|${entry.group}`} className="row">
                <div className="row-main">
                  <div className="row-title">{credentialName(entry, sessionId)}</div>
                  <div className="row-meta">
                    <span>{scope(entry.method, entry.group)}</span>
                    {entry.refused > 0 && <span>{entry.refused} refused</span>}
                    {entry.shadow_limited > 0 && <span>{entry.shadow_limited} over a shadow limit</span>}
                    <span title={formatDateTime(entry.last_at)}>last {relative(entry.last_at)}</span>
                  </div>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section className="card" aria-labelledby="overrides-title">
        <h2 id="overrides-title">Overrides</h2>
        <p className="muted">
          Set by the operator (<code>npm run cli -- ratelimit:set</code>). <em>Enforce</em> replaces the limit;{' '}
          <em>shadow</em> refuses nothing and only counts what it would refuse.
        </p>
        {data.overrides.length === 0 ? (
          <p className="muted">No override: the standard limits apply.</p>
        ) : (
          <ul className="rows" aria-label="Overrides">
            {data.overrides.map((rule) => (
              <li key={rule.id} className="row">
                <div className="row-main">
                  <div className="row-title">
                    {scope(rule.method, rule.group)}: {rule.limit} per {3} s <span className="badge">{rule.mode}</span>
                  </div>
                  <div className="row-meta">
                    <span>{rule.api_key_id ? `API key ${rule.api_key_id.slice(0, 8)}…` : 'Every credential'}</span>
                    <span>{rule.expires_at ? `until ${formatDateTime(rule.expires_at)}` : 'until removed'}</span>
                  </div>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section className="card" aria-labelledby="quotas-title">
        <h2 id="quotas-title">Quotas</h2>
        <p className="muted">
          Set by the operator (<code>npm run cli -- quota:set</code>): requests per UTC hour or day, on top of the
          limits below.
        </p>
        {data.quotas.length === 0 ? (
          <p className="muted">No quota.</p>
        ) : (
          <ul className="rows" aria-label="Quotas">
            {data.quotas.map((quota) => (
              <li key={quota.id} className="row">
                <div className="row-main">
                  <div className="row-title">
                    {quota.limit.toLocaleString('en')} per {quota.per}
                  </div>
                  <div className="row-meta">
                    <span>{quota.api_key_id ? `API key ${quota.api_key_id.slice(0, 8)}…` : 'Every credential'}</span>
                  </div>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section className="card" aria-labelledby="table-title">
        <h2 id="table-title">Limits</h2>
        <p className="muted">
          Requests each client address and credential may send at once per method and group; the bucket refills that
          many every {data.limits[0]?.period_seconds ?? 3} seconds.
          {changed.length > 0 && ` ${changed.length} changed by an override.`}
        </p>
        <div className="table-scroll">
          <table className="data-table" aria-label="Rate limits">
            <thead>
              <tr>
                <th scope="col">Method</th>
                <th scope="col">Group</th>
                <th scope="col">Limit</th>
                <th scope="col">For this company</th>
              </tr>
            </thead>
            <tbody>
              {data.limits.map((limit) => (
                <tr key={`${limit.method} ${limit.group}`}>
                  <td>{limit.method}</td>
                  <td>{limit.group}</td>
                  <td>{limit.capacity}</td>
                  <td>{limit.effective_capacity === limit.capacity ? '—' : limit.effective_capacity}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </div>
  );
}
