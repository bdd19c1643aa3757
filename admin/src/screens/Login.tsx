import { type FormEvent, useState } from 'react';
import { type Account, type Company, request } from '../api';
import { Alert, CurrentPasswordField } from '../components';
import { passkeySignIn } from '../passkey-client';
import { useLogin } from '../session';
import { loginError, passkeyLoginError } from '../login-errors';
import { useSsoSignIn } from '../sso-login-hook';

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
  /** A passkey login's ticket (60 seconds, once): step 2 sends it instead of the password. */
  const [ticket, setTicket] = useState<string | null>(null);

  const sso = useSsoSignIn(setAccount, setBusy, setError);
  const chosen = companies?.find((company) => company.id === companyId);

  const finish = async (id: number) => {
    if (ticket !== null) {
      setTicket(null);
      return setAccount(
        await request<Account>('POST', '/v1/users/authenticatefinish', {
          body: { login_ticket: ticket, company_id: id },
        }),
      );
    }
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
      const only = result.companies.length === 1 ? result.companies[0] : null;
      if (only && !only.sso && !result.otp_required) return await finish(only.id);
      setCompanies(result.companies);
      setCompanyId(result.companies[0].id);
    } catch (failure) {
      setError(loginError(failure));
    } finally {
      setBusy(false);
    }
  };

  const signInWithPasskey = async () => {
    setBusy(true);
    setError(null);
    try {
      const result = await passkeySignIn();
      if (result.companies.length === 0) {
        setError('Your account belongs to no company yet. Ask an administrator to add you to one.');
        return;
      }
      setOtpRequired(false);
      if (result.companies.length === 1) {
        return setAccount(
          await request<Account>('POST', '/v1/users/authenticatefinish', {
            body: { login_ticket: result.login_ticket, company_id: result.companies[0].id },
          }),
        );
      }
      setTicket(result.login_ticket);
      setCompanies(result.companies);
      setCompanyId(result.companies[0].id);
    } catch (failure) {
      setError(passkeyLoginError(failure));
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
            <p className="login-or">or</p>
            <button
              className="button button-secondary button-block"
              type="button"
              disabled={busy}
              onClick={() => void signInWithPasskey()}
            >
              Sign in with a passkey
            </button>
            <button
              className="button button-secondary button-block"
              type="button"
              disabled={busy}
              onClick={() => (email.includes('@') ? void sso({ email }) : setError('Enter your work e-mail first.'))}
            >
              Sign in with your company’s SSO
            </button>
          </form>
        ) : (
          <form onSubmit={(e) => void submitCompany(e)} aria-labelledby="company-title">
            <h1 id="company-title">
              {companies.length > 1 ? 'Choose a company' : otpRequired ? 'Two-step verification' : chosen?.name}
            </h1>
            {companies.length > 1 && (
              <p className="muted">
                <strong>{ticket !== null ? 'Your account' : email}</strong> belongs to {companies.length} companies.
                Your token will act in the one you choose; you can switch later.
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
            {companies.length > 1 && (
              <fieldset className="company-list">
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
            )}
            {chosen?.sso && (
              <Alert tone="info">
                {chosen.name} signs its staff in through its identity provider: no password login.
              </Alert>
            )}
            {!chosen?.sso && (
              <button className="button button-primary button-block" type="submit" disabled={busy}>
                {busy ? 'Logging in…' : 'Log in'}
              </button>
            )}
            <button
              className={chosen?.sso ? 'button button-primary button-block' : 'button button-secondary button-block'}
              type="button"
              disabled={busy || companyId === null}
              onClick={() => void sso({ company_id: companyId! })}
            >
              Sign in with your company’s SSO
            </button>
            <button
              className="button button-link button-block"
              type="button"
              onClick={() => {
                setCompanies(null);
                setTicket(null);
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
