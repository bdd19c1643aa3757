import { type FormEvent, useState } from 'react';
import { describeError } from '../api';
import { Alert, CurrentPasswordField } from '../components';
import { passwordProblem } from '../passwordRule';
import { authed, useLogin } from '../session';
import { Passkeys } from './Passkeys';
import { Totp } from './Totp';

function ChangePassword() {
  const email = useLogin((s) => s.account?.employee.email ?? null);
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ tone: 'error' | 'success'; text: string } | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setResult(null);
    try {
      const problem = await passwordProblem(next, email);
      if (problem) return setResult({ tone: 'error', text: problem });
      await authed('POST', '/v1/users/me/password', { current_password: current, new_password: next });
      setCurrent('');
      setNext('');
      setResult({ tone: 'success', text: 'Your password is changed. Your other sessions have ended.' });
    } catch (e) {
      setResult({ tone: 'error', text: describeError(e) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} className="stack-tight" aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      {result && <Alert tone={result.tone}>{result.text}</Alert>}
      <div className="field-grid">
        <CurrentPasswordField id="current-password" value={current} onChange={setCurrent} />
        <div className="field">
          <label htmlFor="new-password">New password</label>
          <input
            id="new-password"
            type="password"
            autoComplete="new-password"
            required
            value={next}
            onChange={(e) => setNext(e.target.value)}
          />
          <span className="hint">8 to 256 characters, not your e-mail, not a common password.</span>
        </div>
      </div>
      <div>
        <button className="button button-primary" type="submit" disabled={busy}>
          {busy ? 'Changing…' : 'Change password'}
        </button>
      </div>
    </form>
  );
}

/**
 * One's own account: password, second factor and passkeys (sessions are on their own screen). A session restricted
 * to enrolling a second factor is offered only that (the service refuses it the rest).
 */
export function Account({ held, restricted = false }: { held: string[]; restricted?: boolean }) {
  return (
    <div className="stack">
      {!restricted && (
        <section className="card">
          <ChangePassword />
        </section>
      )}
      <section className="card">
        <Totp held={held} known={restricted ? 'off' : undefined} />
      </section>
      <section className="card">
        <Passkeys />
      </section>
    </div>
  );
}
