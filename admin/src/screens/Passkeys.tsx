import { type FormEvent, useState } from 'react';
import { describeError } from '../api';
import { Alert, ConfirmAction, formatDateTime, useLoad } from '../components';
import { passkeyProblem, startRegistration } from '../passkey-client';
import { authed } from '../session';

interface Passkey {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

/** One's passkeys on the Account screen: add (after the step-up prompt, if due), name, remove. */
export function Passkeys() {
  const { data, error, reload } = useLoad(() => authed<{ passkeys: Passkey[] }>('GET', '/v1/users/me/passkeys'), []);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [message, setMessage] = useState<{ tone: 'error' | 'success'; text: string } | null>(null);

  const add = async (event: FormEvent) => {
    event.preventDefault();
    setBusy('add');
    setMessage(null);
    try {
      const options = await authed<never>('POST', '/v1/users/me/passkeys/options');
      const response = await startRegistration({ optionsJSON: options });
      const added = await authed<Passkey>('POST', '/v1/users/me/passkeys', { name: name.trim(), response });
      setName('');
      setMessage({ tone: 'success', text: `Passkey “${added.name}” added. You can sign in with it now.` });
      reload();
    } catch (e) {
      setMessage({ tone: 'error', text: passkeyProblem(e) ?? describeError(e) });
    } finally {
      setBusy(null);
    }
  };

  const remove = async (passkey: Passkey) => {
    setBusy(passkey.id);
    setMessage(null);
    try {
      await authed('DELETE', `/v1/users/me/passkeys/${passkey.id}`);
      setConfirming(null);
      setMessage({ tone: 'success', text: `Passkey “${passkey.name}” removed.` });
      reload();
    } catch (e) {
      setMessage({ tone: 'error', text: describeError(e) });
    } finally {
      setBusy(null);
    }
  };

  return (
    <div className="stack-tight">
      <h2 id="passkeys-title">Passkeys</h2>
      <p className="muted">Sign in with your fingerprint, face or device PIN instead of a password and code.</p>
      {message && <Alert tone={message.tone}>{message.text}</Alert>}
      {error ? <Alert tone="error">{describeError(error)}</Alert> : null}
      {data && data.passkeys.length === 0 && <p className="muted">You have no passkeys yet.</p>}
      {data && data.passkeys.length > 0 && (
        <ul className="rows" aria-label="Your passkeys">
          {data.passkeys.map((passkey) => (
            <li key={passkey.id} className="row" data-passkey-id={passkey.id}>
              <div className="row-main">
                <div className="row-title">{passkey.name}</div>
                <div className="row-meta">
                  <span>Added {formatDateTime(passkey.created_at)}</span>
                  <span>Last used {passkey.last_used_at ? formatDateTime(passkey.last_used_at) : 'never'}</span>
                </div>
              </div>
              <div className="row-actions">
                <ConfirmAction
                  armed={confirming === passkey.id}
                  busy={busy === passkey.id}
                  disabled={busy !== null}
                  label="Remove"
                  busyLabel="Removing…"
                  ariaLabel={`Remove passkey ${passkey.name}`}
                  onArm={() => setConfirming(passkey.id)}
                  onCancel={() => setConfirming(null)}
                  onConfirm={() => void remove(passkey)}
                />
              </div>
            </li>
          ))}
        </ul>
      )}
      <form className="inline-form" onSubmit={(e) => void add(e)} aria-label="Add a passkey">
        <div className="field">
          <label htmlFor="passkey-name">Name of the new passkey</label>
          <input
            id="passkey-name"
            required
            maxLength={64}
            placeholder="Work laptop"
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        </div>
        <button className="button button-primary" type="submit" disabled={busy !== null}>
          {busy === 'add' ? 'Follow your device’s prompt…' : 'Add a passkey'}
        </button>
      </form>
    </div>
  );
}
