import { type FormEvent, useState } from 'react';
import { type Account, type Company, describeError, type Me } from '../api';
import { Alert, CopyButton, formatDateTime, PermissionChips, relative, useLoad } from '../components';
import { authed, useLogin } from '../session';

function CompanySwitcher({ account }: { account: Account }) {
  const setAccount = useLogin((s) => s.setAccount);
  const { data, error } = useLoad(
    () => authed<{ companies: Array<Company & { current: boolean }> }>('GET', '/v1/users/companies'),
    [account.jwt],
  );
  const [target, setTarget] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  if (error) return <Alert tone="error">{describeError(error)}</Alert>;
  if (!data) return <p className="muted">Loading companies…</p>;
  const others = data.companies.filter((c) => !c.current);
  if (others.length === 0) return <p className="muted">Your account belongs to this company only.</p>;
  const selected = target ?? others[0].id;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    try {
      // The previous token is blacklisted by the service; the page continues with the new one.
      setAccount(await authed<Account>('POST', '/v1/users/changeworkingcompany', { company_id: selected }));
      setTarget(null);
    } catch (e) {
      setFailure(describeError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="inline-form" onSubmit={(e) => void submit(e)}>
      {failure && <Alert tone="error">{failure}</Alert>}
      <div className="field">
        <label htmlFor="switch-company">Switch to</label>
        <select id="switch-company" value={selected} onChange={(e) => setTarget(Number(e.target.value))}>
          {others.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </select>
      </div>
      <button className="button button-secondary" type="submit" disabled={busy}>
        {busy ? 'Switching…' : 'Switch company'}
      </button>
      <p className="hint">Switching ends the token shown above; copy the new one afterwards.</p>
    </form>
  );
}

export function Home({ account, me }: { account: Account; me: Me | null }) {
  return (
    <div className="stack">
      <section className="card" aria-labelledby="who-title">
        <h2 id="who-title">You</h2>
        <dl className="facts">
          <div>
            <dt>Name</dt>
            <dd>{account.employee.name || '—'}</dd>
          </div>
          <div>
            <dt>E-mail</dt>
            <dd>{account.employee.email}</dd>
          </div>
          <div>
            <dt>Company</dt>
            <dd data-testid="current-company">{account.company.name}</dd>
          </div>
        </dl>
        <h3>Permissions in {account.company.name}</h3>
        {me ? <PermissionChips permissions={me.permissions} /> : <p className="muted">Loading…</p>}
      </section>

      <section className="card" aria-labelledby="token-title">
        <h2 id="token-title">Your token</h2>
        <p className="muted">
          Send it as the raw <code>Authorization</code> header value (no <code>Bearer</code>). It acts as you in{' '}
          {account.company.name} and stops working when you log out or switch company here.
        </p>
        <div className="field">
          <label htmlFor="token">Token</label>
          <div className="copy-row">
            <input
              id="token"
              className="mono"
              readOnly
              autoComplete="off"
              spellCheck={false}
              value={account.jwt}
              onFocus={(e) => e.target.select()}
            />
            <CopyButton value={account.jwt} label="Copy token" sourceId="token" />
          </div>
        </div>
        <p className="hint" data-testid="token-expiry">
          Expires {formatDateTime(account.expires_at)} ({relative(account.expires_at)}); the page renews it before then.
        </p>
      </section>

      <section className="card" aria-labelledby="company-title">
        <h2 id="company-title">Working company</h2>
        <CompanySwitcher account={account} />
      </section>
    </div>
  );
}
