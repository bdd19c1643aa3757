import { type FormEvent, useState } from 'react';
import { type Account, ApiError, type Company, describeError, formatWait, request } from '../api';
import { Alert, CurrentPasswordField } from '../components';
import { useLogin } from '../session';

function loginError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'error_invalid_credentials') return 'Wrong e-mail or password.';
    if (error.status === 429 && error.perAccount) {
      const wait = error.retryAfter ? formatWait(error.retryAfter) : 'a while';
      return `Too many failed logins for this e-mail. Logging in is locked; try again in ${wait}.`;
    }
    if (error.status === 429) {
      // The request limit is a leaky bucket: Retry-After says when the next request fits, usually 1 second.
      return `Too many requests from this address. Try again in ${formatWait(error.retryAfter ?? 1)}.`;
    }
    if (error.code === 'error_company_not_member') return 'Your account no longer belongs to that company.';
    if (error.code === 'error_otp_required') return 'Enter the 6-digit code from your authenticator app.';
    if (error.code === 'error_otp_invalid') {
      return 'That code is not valid (wrong, already used, or too old). Enter the current code from your app.';
    }
  }
  return describeError(error);
}

/** Two steps, as the API: e-mail and password give the account's companies; the chosen one gives the token. */
export function Login() {
  const notice = useLogin((s) => s.notice);
  const setAccount = useLogin((s) => s.setAccount);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [companies, setCompanies] = useState<Company[] | null>(null);
  const [companyId, setCompanyId] = useState<number | null>(null);
  /** The account has TOTP on: the second step asks for a code (or a recovery code). */
  const [otpRequired, setOtpRequired] = useState(false);
  const [otp, setOtp] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const finish = async (id: number) => {
    const code = otp.trim();
    // Six digits are a code from the app; anything else typed there is taken as a recovery code.
    const secondFactor = !otpRequired ? {} : /^\d{6}$/.test(code) ? { otp: code } : { recovery_code: code };
    const account = await request<Account>('POST', '/v1/users/authenticatefinish', {
      body: { email, password, company_id: id, ...secondFactor },
    });
    setPassword('');
    setOtp('');
    setAccount(account);
  };

  const submitCredentials = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const result = await request<{ companies: Company[]; otp_required?: boolean }>(
        'POST',
        '/v1/users/authenticateinit',
        { body: { email, password } },
      );
      if (result.companies.length === 0) {
        setError('Your account belongs to no company yet. Ask an administrator to add you to one.');
        return;
      }
      setOtpRequired(result.otp_required === true);
      if (result.companies.length === 1 && !result.otp_required) return await finish(result.companies[0].id);
      setCompanies(result.companies);
      setCompanyId(result.companies[0].id);
    } catch (failure) {
      setError(loginError(failure));
    } finally {
      setBusy(false);
    }
  };

  const submitCompany = async (event: FormEvent) => {
    event.preventDefault();
    if (companyId === null) return;
    setBusy(true);
    setError(null);
    try {
      await finish(companyId);
    } catch (failure) {
      setError(loginError(failure));
      setBusy(false);
    }
  };

  return (
    <main className="login-page">
      <div className="login-card">
        <div className="brand brand-large">
          <span className="brand-mark" aria-hidden="true">
            SA
          </span>
          <span>Staff administration</span>
        </div>
        {notice && !error && <Alert tone={notice.tone}>{notice.text}</Alert>}
        {error && <Alert tone="error">{error}</Alert>}

        {companies === null ? (
          <form onSubmit={(e) => void submitCredentials(e)} aria-labelledby="login-title">
            <h1 id="login-title">Log in</h1>
            <div className="field">
              <label htmlFor="email">E-mail</label>
              <input
                id="email"
                type="email"
                autoComplete="username"
                required
                autoFocus
                value={email}
                onChange={(e) => setEmail(e.target.value)}
              />
            </div>
            <CurrentPasswordField id="password" label="Password" value={password} onChange={setPassword} />
            <button className="button button-primary button-block" type="submit" disabled={busy}>
              {busy ? 'Checking…' : 'Continue'}
            </button>
          </form>
        ) : (
          <form onSubmit={(e) => void submitCompany(e)} aria-labelledby="company-title">
            <h1 id="company-title">{companies.length > 1 ? 'Choose a company' : 'Two-step verification'}</h1>
            {companies.length > 1 && (
              <p className="muted">
                <strong>{email}</strong> belongs to {companies.length} companies. Your token will act in the one you
                choose; you can switch later.
              </p>
            )}
            {otpRequired && (
              <div className="field">
                <label htmlFor="otp">Authentication code</label>
                <input
                  id="otp"
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  required
                  autoFocus
                  maxLength={64}
                  value={otp}
                  onChange={(e) => setOtp(e.target.value)}
                />
                <p className="hint">The 6-digit code from your authenticator app, or one of your recovery codes.</p>
              </div>
            )}
            <fieldset className="company-list" hidden={companies.length === 1}>
              <legend className="visually-hidden">Company</legend>
              {companies.map((company) => (
                <label key={company.id} className="company-option" htmlFor={`company-${company.id}`}>
                  <input
                    id={`company-${company.id}`}
                    type="radio"
                    name="company"
                    value={company.id}
                    checked={companyId === company.id}
                    onChange={() => setCompanyId(company.id)}
                  />
                  <span>{company.name}</span>
                </label>
              ))}
            </fieldset>
            <button className="button button-primary button-block" type="submit" disabled={busy}>
              {busy ? 'Logging in…' : 'Log in'}
            </button>
            <button
              className="button button-link button-block"
              type="button"
              onClick={() => {
                setCompanies(null);
                setPassword('');
                setOtp('');
                setOtpRequired(false);
                setError(null);
              }}
            >
              Use another account
            </button>
          </form>
        )}
      </div>
      <p className="login-footnote">
        Your login is kept in this browser until you log out. <a href="/docs">API documentation</a>
      </p>
    </main>
  );
}
