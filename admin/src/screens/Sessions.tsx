import { useState } from 'react';
import { ApiError, describeError, type Session } from '../api';
import { Alert, ConfirmAction, formatDateTime, useLoad } from '../components';
import { sessionName } from '../device-name';
import { authed, logOut } from '../session';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** DELETE is limited to 3 per 3 seconds: a 429 waits its Retry-After and tries the same session again. */
async function revoke(id: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await authed<void>('DELETE', `/v1/users/sessions/${encodeURIComponent(id)}`);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 429 || attempt >= 5) throw error;
      await sleep((error.retryAfter ?? 3) * 1000);
    }
  }
}

export function Sessions() {
  const { data, error, reload } = useLoad(() => authed<{ sessions: Session[] }>('GET', '/v1/users/sessions'), []);
  const [busy, setBusy] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [message, setMessage] = useState<{ tone: 'error' | 'success'; text: string } | null>(null);

  const revokeOne = async (session: Session) => {
    setBusy(session.id);
    setMessage(null);
    try {
      await revoke(session.id);
      setMessage({ tone: 'success', text: `The session from ${sessionName(session)} is ended.` });
    } catch (e) {
      setMessage({ tone: 'error', text: describeError(e) });
    } finally {
      setBusy(null);
      setConfirming(null);
      reload();
    }
  };

  const revokeOthers = async (others: Session[]) => {
    setBusy('others');
    setMessage(null);
    let ended = 0;
    try {
      for (const session of others) {
        await revoke(session.id);
        ended++;
      }
      setMessage({ tone: 'success', text: `Logged out everywhere else (${ended} session${ended === 1 ? '' : 's'}).` });
    } catch (e) {
      setMessage({ tone: 'error', text: `${ended} of ${others.length} ended. ${describeError(e)}` });
    } finally {
      setBusy(null);
      setConfirming(null);
      reload();
    }
  };

  if (error) return <Alert tone="error">{describeError(error)}</Alert>;
  const sessions = data?.sessions ?? [];
  const others = sessions.filter((s) => !s.current);

  return (
    <section className="card" aria-labelledby="sessions-title">
      <div className="card-header">
        <div>
          <h2 id="sessions-title">Sessions</h2>
          <p className="muted">Where you are logged in. Ending a session makes its token stop working at once.</p>
        </div>
        {others.length > 0 &&
          (confirming === 'others' ? (
            <div className="button-row">
              <button
                className="button button-danger"
                type="button"
                disabled={busy !== null}
                onClick={() => void revokeOthers(others)}
              >
                {busy === 'others' ? 'Logging out…' : `Yes, end ${others.length}`}
              </button>
              <button className="button button-secondary" type="button" onClick={() => setConfirming(null)}>
                Cancel
              </button>
            </div>
          ) : (
            <button
              className="button button-secondary"
              type="button"
              disabled={busy !== null}
              onClick={() => setConfirming('others')}
            >
              Log out everywhere else
            </button>
          ))}
      </div>
      {message && <Alert tone={message.tone}>{message.text}</Alert>}
      {!data ? (
        <p className="muted">Loading…</p>
      ) : (
        <ul className="rows" aria-label="Active sessions">
          {sessions.map((session) => (
            <li key={session.id} className="row" data-session-id={session.id}>
              <div className="row-main">
                <div className="row-title">
                  {sessionName(session)}
                  {session.current && <span className="badge badge-current">This browser</span>}
                </div>
                <div className="row-meta">
                  <span>Logged in {formatDateTime(session.created_at)}</span>
                  <span>Last used {formatDateTime(session.last_used_at)}</span>
                </div>
              </div>
              <div className="row-actions">
                {session.current ? (
                  <button className="button button-secondary" type="button" onClick={() => void logOut()}>
                    Log out
                  </button>
                ) : (
                  <ConfirmAction
                    armed={confirming === session.id}
                    busy={busy === session.id}
                    disabled={busy !== null}
                    label="End session"
                    busyLabel="Ending…"
                    ariaLabel={`End session from ${sessionName(session)}`}
                    onArm={() => setConfirming(session.id)}
                    onCancel={() => setConfirming(null)}
                    onConfirm={() => void revokeOne(session)}
                  />
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
