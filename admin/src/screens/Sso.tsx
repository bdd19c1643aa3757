import { type FormEvent, useEffect, useState } from 'react';
import { ApiError, describeError, request } from '../api';
import { Alert, ConfirmAction, CopyButton, PermissionPicker, useLoad } from '../components';
import { authed, useLogin } from '../session';
import { type SsoDomain, SsoDomains } from './SsoDomains';

interface Connection {
  issuer: string;
  client_id: string;
  email_domains: SsoDomain[];
  enforced: boolean;
  jit: { enabled: boolean; permissions: string[] };
  /** null in production until PUBLIC_URL is set. */
  redirect_uri: string | null;
}

/**
 * The company's OpenID Connect provider: read and test it (sso:manage); connect, change, remove it and prove its
 * e-mail domains (`*`).
 */
export function Sso({ held }: { held: string[] }) {
  const companyId = useLogin((s) => s.account?.company.id ?? 0);
  const loaded = useLoad(
    () =>
      authed<Connection>('GET', '/v1/sso/connection').catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }),
    [],
  );
  const [issuer, setIssuer] = useState('');
  const [clientId, setClientId] = useState('');
  const [secret, setSecret] = useState('');
  const [domains, setDomains] = useState('');
  const [enforced, setEnforced] = useState(false);
  const [jit, setJit] = useState(false);
  const [jitPermissions, setJitPermissions] = useState<string[]>([]);
  const [busy, setBusy] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [message, setMessage] = useState<{ tone: 'error' | 'success' | 'info'; text: string } | null>(null);
  const [testUrl, setTestUrl] = useState<string | null>(null);
  const [verified, setVerified] = useState<SsoDomain[] | null>(null);
  const current = loaded.data;
  const canChange = held.includes('*');

  useEffect(() => {
    if (!current) return;
    setVerified(null);
    setIssuer(current.issuer);
    setClientId(current.client_id);
    setDomains(current.email_domains.map((d) => d.domain).join(', '));
    setEnforced(current.enforced);
    setJit(current.jit.enabled);
    setJitPermissions(current.jit.permissions);
  }, [current]);

  const redirectUri = current
    ? (current.redirect_uri ?? 'PUBLIC_URL is not set')
    : `${window.location.origin}/v1/sso/callback`;

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setBusy('save');
    setMessage(null);
    try {
      await authed<Connection>('PUT', '/v1/sso/connection', {
        issuer: issuer.trim(),
        client_id: clientId.trim(),
        client_secret: secret,
        email_domains: domains
          .split(/[\s,]+/)
          .map((d) => d.trim().toLowerCase())
          .filter(Boolean),
        enforced,
        jit: { enabled: jit, permissions: jit ? jitPermissions : [] },
      });
      setSecret('');
      setMessage({
        tone: 'success',
        text: 'Saved. The provider’s discovery document was read. Prove any new domain below before its people sign in.',
      });
      loaded.reload();
    } catch (e) {
      setMessage({ tone: 'error', text: describeError(e) });
    } finally {
      setBusy(null);
    }
  };

  const test = async () => {
    setBusy('test');
    setMessage(null);
    setTestUrl(null);
    try {
      // With this browser's cookies: the sign-in the link starts must finish in this browser.
      const started = await request<{ authorization_url: string }>('POST', '/v1/sso/start', {
        body: { company_id: companyId, return_to: '/admin' },
        withCookies: true,
      });
      setTestUrl(started.authorization_url);
      setMessage({ tone: 'success', text: 'The provider answers: a sign-in can start.' });
    } catch (e) {
      setMessage({ tone: 'error', text: describeError(e) });
    } finally {
      setBusy(null);
    }
  };

  const remove = async () => {
    setBusy('remove');
    try {
      await authed<void>('DELETE', '/v1/sso/connection');
      setMessage({ tone: 'success', text: 'Single sign-on is off: staff log in with passwords again.' });
      setIssuer('');
      setClientId('');
      setDomains('');
      setEnforced(false);
      setJit(false);
      loaded.reload();
    } catch (e) {
      setMessage({ tone: 'error', text: describeError(e) });
    } finally {
      setBusy(null);
      setConfirming(null);
    }
  };

  return (
    <div className="stack">
      <section className="card" aria-labelledby="sso-title">
        <h2 id="sso-title">Single sign-on</h2>
        <p className="muted">
          Staff sign in through your company’s identity provider (Entra ID, Google Workspace, Okta, Keycloak…). Register
          this redirect URI at the provider, with the scopes <code>openid email profile</code>:
        </p>
        <div className="copy-row">
          <input id="sso-redirect" readOnly value={redirectUri} aria-label="Redirect URI" />
          <CopyButton value={redirectUri} sourceId="sso-redirect" />
        </div>
        {loaded.error ? <Alert tone="error">{describeError(loaded.error)}</Alert> : null}
        {message && <Alert tone={message.tone}>{message.text}</Alert>}
        {testUrl && (
          <p>
            <a href={testUrl}>Try signing in through the provider</a>
          </p>
        )}
        <form onSubmit={(e) => void save(e)} aria-label="Connection">
          <div className="field">
            <label htmlFor="sso-issuer">Issuer</label>
            <input id="sso-issuer" required value={issuer} onChange={(e) => setIssuer(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="sso-client">Client ID</label>
            <input id="sso-client" required value={clientId} onChange={(e) => setClientId(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="sso-secret">Client secret</label>
            <input
              id="sso-secret"
              type="password"
              required
              autoComplete="off"
              placeholder={current ? 'Stored encrypted; type it again to save changes' : ''}
              value={secret}
              onChange={(e) => setSecret(e.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor="sso-domains">E-mail domains</label>
            <input
              id="sso-domains"
              required
              placeholder="example.com, example.org"
              value={domains}
              onChange={(e) => setDomains(e.target.value)}
            />
          </div>
          <label className="checkbox">
            <input type="checkbox" checked={enforced} onChange={(e) => setEnforced(e.target.checked)} /> Require single
            sign-on (no password logins into this company)
          </label>
          <label className="checkbox">
            <input type="checkbox" checked={jit} onChange={(e) => setJit(e.target.checked)} /> Create accounts at their
            first sign-in (JIT)
          </label>
          {jit && (
            <PermissionPicker
              legend="Permissions of new accounts"
              held={held}
              value={jitPermissions}
              onChange={setJitPermissions}
            />
          )}
          <div className="actions">
            <button className="button button-primary" type="submit" disabled={busy !== null || !canChange}>
              {busy === 'save' ? 'Saving…' : 'Save'}
            </button>
            {current && (
              <button
                className="button button-secondary"
                type="button"
                disabled={busy !== null}
                onClick={() => void test()}
              >
                {busy === 'test' ? 'Testing…' : 'Test the connection'}
              </button>
            )}
            {current && (
              <ConfirmAction
                armed={confirming === 'remove'}
                busy={busy === 'remove'}
                disabled={(busy !== null && busy !== 'remove') || !canChange}
                label="Remove"
                busyLabel="Removing…"
                ariaLabel="Remove single sign-on"
                onArm={() => setConfirming('remove')}
                onCancel={() => setConfirming(null)}
                onConfirm={() => void remove()}
              />
            )}
          </div>
          {!canChange && (
            <p className="hint">
              Changing the connection needs the permission * (all permissions): whoever controls it can sign in as any
              member.
            </p>
          )}
        </form>
      </section>
      {current && current.email_domains.length > 0 && (
        <SsoDomains domains={verified ?? current.email_domains} canChange={canChange} onVerified={setVerified} />
      )}
    </div>
  );
}
