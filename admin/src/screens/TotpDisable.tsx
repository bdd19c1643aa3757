import { type FormEvent, useState } from 'react';
import { describeError } from '../api';
import { Alert, AppCodeField, CurrentPasswordField } from '../components';
import { authed } from '../session';

/** Turning one's own TOTP off: the password and a current code, so a left-open browser alone cannot do it. */
export function TotpDisable({ onOff }: { onOff(): void }) {
  const [password, setPassword] = useState('');
  const [otp, setOtp] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await authed('POST', '/v1/users/me/mfa/totp/disable', { current_password: password, otp: otp.trim() });
      setPassword('');
      setOtp('');
      onOff();
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} className="stack-tight" aria-labelledby="totp-off-title">
      <h3 id="totp-off-title">Turn off two-step verification</h3>
      {error && <Alert tone="error">{error}</Alert>}
      <div className="field-grid">
        <CurrentPasswordField id="totp-off-password" value={password} onChange={setPassword} />
        <AppCodeField id="totp-off-code" value={otp} onChange={setOtp} />
      </div>
      <div>
        <button className="button button-secondary" type="submit" disabled={busy}>
          {busy ? 'Turning off…' : 'Turn off two-step verification'}
        </button>
      </div>
    </form>
  );
}
