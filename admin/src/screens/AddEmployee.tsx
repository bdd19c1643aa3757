import { type FormEvent, useState } from 'react';
import { type CompanyEmployee, describeError } from '../api';
import { Alert, PermissionPicker } from '../components';
import { passwordProblem } from '../passwordRule';
import { authed } from '../session';

export function AddEmployee({ held, onAdded }: { held: string[]; onAdded(name: string): void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [permissions, setPermissions] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const problem = await passwordProblem(password, email);
      if (problem) return setError(problem);
      const added = await authed<CompanyEmployee>('POST', '/v1/users', { email, name, password, permissions });
      setEmail('');
      setName('');
      setPassword('');
      setPermissions([]);
      onAdded(added.name || added.email);
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} className="stack-tight">
      {error && <Alert tone="error">{error}</Alert>}
      <div className="field-grid">
        <div className="field">
          <label htmlFor="new-email">E-mail</label>
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
          <span className="hint">8 to 256 characters, not a common password. Hand it over privately.</span>
        </div>
      </div>
      <PermissionPicker legend="Permissions" held={held} value={permissions} onChange={setPermissions} />
      <div>
        <button className="button button-primary" type="submit" disabled={busy}>
          {busy ? 'Adding…' : 'Add employee'}
        </button>
      </div>
    </form>
  );
}
