import { type FormEvent, useState } from 'react';
import { type ApiKey, describeError } from '../api';
import {
  Alert,
  ConfirmAction,
  CopyButton,
  formatDateTime,
  PermissionChips,
  PermissionPicker,
  useLoad,
} from '../components';
import { authed } from '../session';

interface Created {
  id: string;
  name: string;
  permissions: string[];
  api_key: string;
}

export function ApiKeys({ held }: { held: string[] }) {
  const { data, error, reload } = useLoad(() => authed<{ data: ApiKey[] }>('GET', '/v1/apikeys?per_page=100'), []);
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState<string[]>([]);
  const [created, setCreated] = useState<Created | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [message, setMessage] = useState<{ tone: 'error' | 'success'; text: string } | null>(null);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    if (permissions.length === 0) {
      setMessage({ tone: 'error', text: 'Choose at least one permission for the key.' });
      return;
    }
    setBusy('create');
    setMessage(null);
    try {
      setCreated(await authed<Created>('POST', '/v1/apikeys', { name: name.trim(), permissions }));
      setName('');
      setPermissions([]);
      reload();
    } catch (e) {
      setMessage({ tone: 'error', text: describeError(e) });
    } finally {
      setBusy(null);
    }
  };

  const revoke = async (key: ApiKey) => {
    setBusy(key.id);
    setMessage(null);
    try {
      await authed<void>('DELETE', `/v1/apikeys/${encodeURIComponent(key.id)}`);
      setMessage({ tone: 'success', text: `The key "${key.name}" is revoked.` });
      if (created?.id === key.id) setCreated(null);
    } catch (e) {
      setMessage({ tone: 'error', text: describeError(e) });
    } finally {
      setBusy(null);
      setConfirming(null);
      reload();
    }
  };

  return (
    <div className="stack">
      <section className="card" aria-labelledby="new-key-title">
        <h2 id="new-key-title">New API key</h2>
        <p className="muted">
          A key acts for this company with the permissions you give it (never more than yours), until it is revoked.
        </p>
        {created && (
          <div className="secret" role="status">
            <p>
              <strong>Copy the key “{created.name}” now.</strong> Its secret is shown only this once.
            </p>
            <div className="copy-row">
              <label htmlFor="new-api-key" className="visually-hidden">
                New API key
              </label>
              <input
                id="new-api-key"
                className="mono"
                readOnly
                value={created.api_key}
                onFocus={(e) => e.target.select()}
              />
              <CopyButton value={created.api_key} label="Copy key" sourceId="new-api-key" />
            </div>
            <button className="button button-link" type="button" onClick={() => setCreated(null)}>
              I have copied it
            </button>
          </div>
        )}
        <form onSubmit={(e) => void create(e)} className="stack-tight">
          <div className="field">
            <label htmlFor="key-name">Name</label>
            <input
              id="key-name"
              required
              maxLength={100}
              placeholder="e.g. warehouse sync"
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          </div>
          <PermissionPicker legend="Permissions of the key" held={held} value={permissions} onChange={setPermissions} />
          <div>
            <button className="button button-primary" type="submit" disabled={busy !== null}>
              {busy === 'create' ? 'Creating…' : 'Create key'}
            </button>
          </div>
        </form>
      </section>

      <section className="card" aria-labelledby="keys-title">
        <h2 id="keys-title">API keys of this company</h2>
        {message && <Alert tone={message.tone}>{message.text}</Alert>}
        {error ? (
          <Alert tone="error">{describeError(error)}</Alert>
        ) : !data ? (
          <p className="muted">Loading…</p>
        ) : data.data.length === 0 ? (
          <p className="muted">No API keys yet.</p>
        ) : (
          <ul className="rows" aria-label="API keys">
            {data.data.map((key) => (
              <li key={key.id} className="row" data-key-id={key.id}>
                <div className="row-main">
                  <div className="row-title">{key.name}</div>
                  <PermissionChips permissions={key.permissions} />
                  <div className="row-meta">
                    <span>
                      Key <code>{key.prefix}</code>
                    </span>
                    <span>Owner {key.owner.email}</span>
                    <span>Created {formatDateTime(key.created_at)}</span>
                    <span>Last used {formatDateTime(key.last_used_at)}</span>
                  </div>
                </div>
                <div className="row-actions">
                  <ConfirmAction
                    armed={confirming === key.id}
                    busy={busy === key.id}
                    disabled={busy !== null}
                    label="Revoke"
                    busyLabel="Revoking…"
                    ariaLabel={`Revoke ${key.name}`}
                    onArm={() => setConfirming(key.id)}
                    onCancel={() => setConfirming(null)}
                    onConfirm={() => void revoke(key)}
                  />
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
