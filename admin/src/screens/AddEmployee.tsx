import { type FormEvent, useState } from 'react';
import { type CompanyEmployee, describeError } from '../api';
import { Alert, PermissionPicker } from '../components';
import { passwordProblem } from '../passwordRule';
import { authed } from '../session';
import { ShownOnce } from './StaffActions';

type Mode = 'invite' | 'add';

/**
 * Someone new joins the company: invited by e-mail (they choose their own password with the code, shown once) or
 * added at once with a first password. One form, so one permission picker on the screen.
 */
export function NewEmployee({ held, onDone }: { held: string[]; onDone(mode: Mode): void }) {
  const [mode, setMode] = useState<Mode>('invite');
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [permissions, setPermissions] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [code, setCode] = useState<{ email: string; code: string } | null>(null);

  const reset = () => {
    setEmail('');
    setName('');
    setPassword('');
    setPermissions([]);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      if (mode === 'invite') {
        const invited = await authed<{ email: string; code: string }>('POST', '/v1/users/invitations', {
          email,
          permissions,
        });
        setCode({ email: invited.email, code: invited.code });
      } else {
        const problem = await passwordProblem(password, email);
        if (problem) return setError(problem);
        const added = await authed<CompanyEmployee>('POST', '/v1/users', { email, name, password, permissions });
        setDone(`${added.name || added.email} is added.`);
      }
      reset();
      onDone(mode);
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} className="stack-tight">
      {error && <Alert tone="error">{error}</Alert>}
      {done && <Alert tone="success">{done}</Alert>}
      {code && (
        <ShownOnce
          label={`Invitation code for ${code.email} (valid 7 days, once).`}
          code={code.code}
          onDismiss={() => setCode(null)}
        />
      )}
      <fieldset className="mode-choice">
        <legend className="visually-hidden">How they join</legend>
        <label className="mode-option">
          <input type="radio" name="new-mode" checked={mode === 'invite'} onChange={() => setMode('invite')} />
          Invite by e-mail
        </label>
        <label className="mode-option">
          <input type="radio" name="new-mode" checked={mode === 'add'} onChange={() => setMode('add')} />
          Add with a first password
        </label>
      </fieldset>
      <p className="hint">
        {mode === 'invite'
          ? 'They get a code, valid 7 days, and choose their own password. Someone who already has an account (in another company) keeps it and joins this one.'
          : 'The account is created now, in this company; hand the password over privately.'}
      </p>
      <div className="field-grid">
        <div className="field">
          <label htmlFor="new-email">{mode === 'invite' ? 'E-mail to invite' : 'E-mail'}</label>
          <input
            id="new-email"
            type="email"
            autoComplete="off"
            required
            maxLength={320}
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </div>
        {mode === 'add' && (
          <>
            <div className="field">
              <label htmlFor="new-name">Name</label>
              <input id="new-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
            </div>
            <div className="field">
              <label htmlFor="new-password">Initial password</label>
              <input
                id="new-password"
                type="password"
                autoComplete="new-password"
                required
                minLength={8}
                maxLength={256}
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
              <span className="hint">8 to 256 characters, not a common password.</span>
            </div>
          </>
        )}
      </div>
      <PermissionPicker legend="Permissions" held={held} value={permissions} onChange={setPermissions} />
      <div>
        <button className="button button-primary" type="submit" disabled={busy}>
          {mode === 'invite' ? (busy ? 'Inviting…' : 'Invite') : busy ? 'Adding…' : 'Add employee'}
        </button>
      </div>
    </form>
  );
}
