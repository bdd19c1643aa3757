import { useEffect, useState } from 'react';
import { type Account, describeError, type Me } from './api';
import { Alert, useLoad } from './components';
import { holds } from './permissions';
import { Account as AccountScreen } from './screens/Account';
import { Activity } from './screens/Activity';
import { EventStreams } from './screens/EventStreams';
import { ApiKeys } from './screens/ApiKeys';
import { Employees } from './screens/Employees';
import { EnrolmentNotice } from './screens/EnrolmentNotice';
import { Home } from './screens/Home';
import { Limits } from './screens/Limits';
import { Login } from './screens/Login';
import { Policy } from './screens/Policy';
import { Roles } from './screens/Roles';
import { Sessions } from './screens/Sessions';
import { Sso } from './screens/Sso';
import { StepUpPrompt } from './StepUpPrompt';
import {
  authed,
  endSession,
  followOtherTabs,
  isRenewable,
  logOut,
  refreshDelay,
  refreshNow,
  useLogin,
} from './session';

type Screen =
  'home' | 'account' | 'sessions' | 'apikeys' | 'employees' | 'roles' | 'activity' | 'limits' | 'sso' | 'policy';
const SCREENS: Screen[] = [
  'account',
  'sessions',
  'apikeys',
  'employees',
  'roles',
  'activity',
  'limits',
  'sso',
  'policy',
];

/** The screen lives in the hash (never the token), so reload and the back button keep it. */
function useScreen(): [Screen, (screen: Screen) => void] {
  const read = (): Screen => {
    const name = window.location.hash.replace(/^#\/?/, '');
    return SCREENS.includes(name as Screen) ? (name as Screen) : 'home';
  };
  const [screen, setScreen] = useState<Screen>(read);
  useEffect(() => {
    const onHash = () => setScreen(read());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  return [screen, (next) => (window.location.hash = `#/${next}`)];
}

/** Renews the token before it expires; a timer cannot wait longer than ~24.8 days, so long waits re-arm. */
function useTokenRenewal(account: Account | null) {
  useEffect(() => {
    if (!account) return;
    let timer: number | undefined;
    const arm = () => {
      if (!isRenewable(account)) {
        // Nothing left to renew: at expiry, back to the login with the reason rather than a failing request.
        const left = Date.parse(account.expires_at) - Date.now();
        if (left <= 0) return endSession('Your login has expired. Log in again.');
        timer = window.setTimeout(arm, Math.min(left, 2 ** 31 - 1));
        return;
      }
      const delay = refreshDelay(account);
      if (delay === 0) return void refreshNow();
      timer = window.setTimeout(arm, Math.min(delay, 2 ** 31 - 1));
    };
    arm();
    // A laptop waking from sleep: timers were frozen, so check at once.
    const onVisible = () =>
      document.visibilityState === 'visible' &&
      isRenewable(account) &&
      refreshDelay(account) === 0 &&
      void refreshNow();
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      window.clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [account]);
}

function Shell({ account }: { account: Account }) {
  const [screen, go] = useScreen();
  const notice = useLogin((s) => s.notice);
  const me = useLoad(() => authed<Me>('GET', '/v1/users/me'), [account.jwt]);
  // A session the company restricts to enrolling a second factor may use its own account's screen only.
  const restricted = account.restricted === 'mfa_enrollment' || me.data?.restricted === 'mfa_enrollment';
  const held = restricted ? [] : (me.data?.permissions ?? []);
  const staff = holds(held, 'users:read') || holds(held, 'users:write');
  const tabs: Array<{ id: Screen; label: string; shown: boolean }> = [
    { id: 'home', label: 'Home', shown: !restricted },
    { id: 'account', label: 'Account', shown: true },
    { id: 'sessions', label: 'Sessions', shown: !restricted },
    { id: 'apikeys', label: 'API keys', shown: holds(held, 'apikeys:manage') },
    { id: 'employees', label: 'Employees', shown: staff },
    { id: 'roles', label: 'Roles', shown: staff },
    { id: 'activity', label: 'Activity', shown: holds(held, 'auditevents:read') },
    { id: 'limits', label: 'Limits', shown: holds(held, 'auditevents:read') },
    { id: 'sso', label: 'Single sign-on', shown: holds(held, 'sso:manage') },
    { id: 'policy', label: 'Policy', shown: holds(held, '*') },
  ];
  const visible = tabs.filter((t) => t.shown);
  // A screen the user may not use (a stale link, or permissions just narrowed) falls back to Home.
  const fallback = restricted ? 'account' : 'home';
  const current = (me.data || restricted) && !visible.some((t) => t.id === screen) ? fallback : screen;

  useEffect(() => {
    document.title = `${tabs.find((t) => t.id === current)?.label ?? 'Home'} · Staff administration`;
  });

  return (
    <div className="app">
      <a
        className="skip-link"
        href="#main"
        onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}
      >
        Skip to content
      </a>
      <header className="topbar">
        <div className="topbar-inner">
          <div className="brand">
            <span className="brand-mark" aria-hidden="true">
              SA
            </span>
            <span className="brand-text">Staff administration</span>
          </div>
          <div className="topbar-user">
            <span className="topbar-who">
              <span className="topbar-name">{account.employee.name || account.employee.email}</span>
              <span className="topbar-company">{account.company.name}</span>
            </span>
            <button className="button button-secondary button-small" type="button" onClick={() => void logOut()}>
              Log out
            </button>
          </div>
        </div>
        <nav className="tabs" aria-label="Sections">
          <div className="tabs-inner">
            {visible.map((tab) => (
              <a
                key={tab.id}
                href={`#/${tab.id}`}
                className={tab.id === current ? 'tab tab-active' : 'tab'}
                aria-current={tab.id === current ? 'page' : undefined}
                onClick={(e) => {
                  e.preventDefault();
                  go(tab.id);
                }}
              >
                {tab.label}
              </a>
            ))}
          </div>
        </nav>
      </header>
      <main id="main" className="content" tabIndex={-1}>
        {notice && (
          <Alert tone={notice.tone}>
            {notice.text}{' '}
            <button className="button button-link" type="button" onClick={() => useLogin.getState().clearNotice()}>
              Dismiss
            </button>
          </Alert>
        )}
        {restricted && <EnrolmentNotice />}
        {me.error ? <Alert tone="error">{describeError(me.error)}</Alert> : null}
        {current === 'home' && <Home account={account} me={me.data} />}
        {current === 'account' && <AccountScreen held={held} restricted={restricted} />}
        {current === 'sessions' && <Sessions />}
        {current === 'apikeys' && me.data && <ApiKeys key={account.jwt} held={held} />}
        {current === 'employees' && me.data && <Employees key={account.jwt} held={held} selfId={account.employee.id} />}
        {current === 'activity' && me.data && (
          <div className="stack">
            <Activity key={account.jwt} held={held} companyId={account.company.id} />
            <EventStreams key={`streams-${account.jwt}`} />
          </div>
        )}
        {current === 'limits' && me.data && <Limits key={account.jwt} sessionId={account.session_id} />}
        {current === 'sso' && me.data && <Sso key={account.jwt} held={held} />}
        {current === 'roles' && me.data && <Roles key={account.jwt} held={held} />}
        {current === 'policy' && me.data && <Policy key={account.jwt} />}
      </main>
    </div>
  );
}

export function App() {
  const account = useLogin((s) => s.account);
  useEffect(followOtherTabs, []);
  useTokenRenewal(account);
  if (!account) return <Login />;
  // A login kept past its token's expiry (the browser was closed for days): renew before sending it anywhere.
  if (Date.parse(account.expires_at) <= Date.now()) {
    return (
      <main className="login-page" aria-busy="true">
        <div className="login-card">
          <p className="muted">Renewing your login…</p>
          {/* The renewal may be held up (no network, rate limit); the user is never stuck here. */}
          <button className="button button-secondary" type="button" onClick={() => void logOut()}>
            Log in again instead
          </button>
        </div>
      </main>
    );
  }
  return (
    <>
      <Shell account={account} />
      <StepUpPrompt />
    </>
  );
}
