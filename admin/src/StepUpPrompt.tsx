import { type FormEvent, useState } from 'react';
import { ApiError, describeError, request } from './api';
import { Alert, CurrentPasswordField } from './components';
import { passkeyAssertion, passkeyProblem } from './passkey-client';
import { useLogin } from './session';
import { finishStepUp, useStepUp } from './step-up';

/**
 * The step-up prompt: shown when an action needs a fresh proof (error_reauthentication_required). The password
 * (and the app's code when two-step verification is on) or a passkey; once accepted, the waiting action repeats.
 */
export function StepUpPrompt() {
  const open = useStepUp((s) => s.waiting.length > 0);
  const [password, setPassword] = useState('');
  const [otp, setOtp] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!open) return null;

  const prove = async (body: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      const token = useLogin.getState().account?.jwt;
      await request('POST', '/v1/users/me/reauthenticate', { token, body: await body() });
      setPassword('');
      setOtp('');
      finishStepUp({ proven: true });
    } catch (e) {
      if (e instanceof ApiError && e.code === 'error_otp_required') setError('Enter the code from your app too.');
      else if (e instanceof ApiError && e.code === 'error_invalid_credentials')
        setError('That did not prove it: wrong password or passkey.');
      else setError(passkeyProblem(e) ?? describeError(e));
    } finally {
      setBusy(false);
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const code = otp.trim();
    void prove(async () => ({ current_password: password, ...(code ? { otp: code } : {}) }));
  };
  const cancel = () => {
    setError(null);
    finishStepUp({
      proven: false,
      error: new ApiError(
        401,
        'error_reauthentication_required',
        'Cancelled: the action needs you to confirm it is you.',
        null,
        false,
      ),
    });
  };

  return (
    <div className="dialog-backdrop">
      <form
        role="dialog"
        aria-modal="true"
        aria-labelledby="step-up-title"
        className="dialog card stack-tight"
        onSubmit={submit}
      >
        <h2 id="step-up-title">Confirm it’s you</h2>
        <p className="muted">
          This action needs a fresh proof that it is you (every 15 minutes). Then it goes on by itself.
        </p>
        {error && <Alert tone="error">{error}</Alert>}
        <CurrentPasswordField id="step-up-password" label="Password" value={password} onChange={setPassword} />
        <div className="field">
          <label htmlFor="step-up-otp">Code from the app (if two-step verification is on)</label>
          <input
            id="step-up-otp"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9]{6}"
            maxLength={6}
            value={otp}
            onChange={(e) => setOtp(e.target.value)}
          />
        </div>
        <div className="button-row">
          <button className="button button-primary" type="submit" disabled={busy}>
            {busy ? 'Checking…' : 'Confirm'}
          </button>
          <button
            className="button button-secondary"
            type="button"
            disabled={busy}
            onClick={() => void prove(passkeyAssertion)}
          >
            Use a passkey
          </button>
          <button className="button button-link" type="button" disabled={busy} onClick={cancel}>
            Cancel
          </button>
        </div>
      </form>
    </div>
  );
}
