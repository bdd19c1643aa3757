import { type FormEvent, useMemo, useState } from 'react';
import { encode } from 'uqr';
import { describeError } from '../api';
import { Alert, CopyButton } from '../components';
import { passwordProblem } from '../passwordRule';
import { authed, useLogin } from '../session';

/** The otpauth URI drawn as a QR code: SVG squares from the encoded matrix, no canvas, no inline script. */
function QrCode({ text }: { text: string }) {
  const { data, size } = useMemo(() => encode(text, { border: 2 }), [text]);
  const cells: string[] = [];
  data.forEach((row, y) => row.forEach((on, x) => on && cells.push(`M${x} ${y}h1v1h-1z`)));
  return (
    <svg
      className="qr"
      viewBox={`0 0 ${size} ${size}`}
      width={200}
      height={200}
      role="img"
      aria-label="QR code to scan"
    >
      <rect width={size} height={size} fill="#fff" />
      <path d={cells.join('')} fill="#000" />
    </svg>
  );
}

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
        <div className="field">
          <label htmlFor="current-password">Current password</label>
          <input
            id="current-password"
            type="password"
            autoComplete="current-password"
            required
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
          />
        </div>
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

interface Enrolment {
  secret: string;
  otpauth_uri: string;
  recovery_codes: string[];
}

function TotpSetUp() {
  const [password, setPassword] = useState('');
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [otp, setOtp] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ tone: 'error' | 'success'; text: string } | null>(null);

  const start = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setResult(null);
    try {
      setEnrolment(await authed<Enrolment>('POST', '/v1/users/me/mfa/totp', { current_password: password }));
      setPassword('');
    } catch (e) {
      setResult({ tone: 'error', text: describeError(e) });
    } finally {
      setBusy(false);
    }
  };

  const confirm = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setResult(null);
    try {
      await authed('POST', '/v1/users/me/mfa/totp/confirm', { otp: otp.trim() });
      // The secret and the recovery codes are never shown again.
      setEnrolment(null);
      setOtp('');
      setResult({ tone: 'success', text: 'Two-step verification is on. Your other sessions have ended.' });
    } catch (e) {
      setResult({ tone: 'error', text: describeError(e) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="stack-tight" aria-labelledby="totp-title">
      <h2 id="totp-title">Two-step verification (TOTP)</h2>
      {result && <Alert tone={result.tone}>{result.text}</Alert>}
      {!enrolment ? (
        <form onSubmit={(e) => void start(e)} className="stack-tight">
          <p className="muted">After your password, logging in will ask for a code from an authenticator app.</p>
          <div className="field">
            <label htmlFor="totp-password">Current password</label>
            <input
              id="totp-password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </div>
          <div>
            <button className="button button-primary" type="submit" disabled={busy}>
              Set up two-step verification
            </button>
          </div>
        </form>
      ) : (
        <form onSubmit={(e) => void confirm(e)} className="stack-tight">
          <p>Scan this code with your authenticator app, or enter the key by hand.</p>
          <QrCode text={enrolment.otpauth_uri} />
          <div className="button-row">
            <input id="totp-secret" className="code-field" readOnly value={enrolment.secret} aria-label="Key" />
            <CopyButton value={enrolment.secret} sourceId="totp-secret" />
          </div>
          <p>
            <strong>Recovery codes</strong>: each logs you in once without the app. Keep them somewhere safe; they are
            shown only now.
          </p>
          <ul className="recovery-codes" aria-label="Recovery codes">
            {enrolment.recovery_codes.map((code) => (
              <li key={code}>
                <code>{code}</code>
              </li>
            ))}
          </ul>
          <div className="field">
            <label htmlFor="totp-confirm">Code from the app</label>
            <input
              id="totp-confirm"
              inputMode="numeric"
              autoComplete="one-time-code"
              required
              pattern="[0-9]{6}"
              value={otp}
              onChange={(e) => setOtp(e.target.value)}
            />
          </div>
          <div>
            <button className="button button-primary" type="submit" disabled={busy}>
              {busy ? 'Checking…' : 'Turn on'}
            </button>
          </div>
        </form>
      )}
    </div>
  );
}

/** One's own account: password and second factor (sessions are on their own screen). */
export function Account() {
  return (
    <div className="stack">
      <section className="card">
        <ChangePassword />
      </section>
      <section className="card">
        <TotpSetUp />
      </section>
    </div>
  );
}
