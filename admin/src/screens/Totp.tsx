import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { encode } from 'uqr';
import { describeError } from '../api';
import { Alert, AppCodeField, CopyButton, CurrentPasswordField } from '../components';
import { holds } from '../permissions';
import { authed, useLogin } from '../session';
import { TotpDisable } from './TotpDisable';

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

interface Enrolment {
  secret: string;
  otpauth_uri: string;
  recovery_codes: string[];
}

function TotpSetUp({ onStarted, onOn }: { onStarted(): void; onOn(): void }) {
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
      // The service starts a set-up only while TOTP is off.
      onStarted();
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
      onOn();
    } catch (e) {
      setResult({ tone: 'error', text: describeError(e) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="stack-tight">
      {result && <Alert tone={result.tone}>{result.text}</Alert>}
      {!enrolment ? (
        <form onSubmit={(e) => void start(e)} className="stack-tight">
          <p className="muted">After your password, logging in will ask for a code from an authenticator app.</p>
          <CurrentPasswordField id="totp-password" value={password} onChange={setPassword} />
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
          <AppCodeField id="totp-confirm" value={otp} onChange={setOtp} />
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

/**
 * Whether one's own TOTP is on: GET /v1/users/me does not say, so the screen asks the employee list (with
 * users:read) or else knows only what it did itself; until it knows it offers both setting up and turning off.
 */
type TotpState = 'unknown' | 'on' | 'off';

/** `known`: what the page knows already (a session restricted to enrolling a second factor has none). */
export function Totp({ held, known }: { held: string[]; known?: 'off' }) {
  const self = useLogin((s) => s.account?.employee ?? null);
  const [state, setState] = useState<TotpState>(known ?? 'unknown');
  // Someone who may list employees can read their own `mfa` there; others see both forms.
  useEffect(() => {
    if (!self || !holds(held, 'users:read')) return;
    let live = true;
    const params = new URLSearchParams({ q: self.email, per_page: '100' });
    authed<{ data: Array<{ id: number; mfa: boolean }> }>('GET', `/v1/users?${params}`).then(
      (page) => {
        const mine = page.data.find((employee) => employee.id === self.id);
        if (live && mine) setState((known) => (known === 'unknown' ? (mine.mfa ? 'on' : 'off') : known));
      },
      () => undefined, // Not knowing is safe: both forms stay offered.
    );
    return () => {
      live = false;
    };
  }, [self?.id, self?.email, held.join(' ')]);
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <div className="stack-tight" aria-labelledby="totp-title">
      <h2 id="totp-title">Two-step verification (TOTP)</h2>
      {notice && <Alert tone="success">{notice}</Alert>}
      {state !== 'on' && (
        <TotpSetUp
          onStarted={() => setState('off')}
          onOn={() => {
            setState('on');
            setNotice('Two-step verification is on. Your other sessions have ended.');
          }}
        />
      )}
      {state !== 'off' && (
        <TotpDisable
          onOff={() => {
            setState('off');
            setNotice('Two-step verification is off. You can set it up again below.');
          }}
        />
      )}
    </div>
  );
}
