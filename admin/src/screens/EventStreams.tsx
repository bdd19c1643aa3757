import { type FormEvent, useState } from 'react';
import { describeError } from '../api';
import { Alert, ConfirmAction, CopyButton, formatDateTime, useLoad } from '../components';
import { authed } from '../session';

interface Stream {
  id: string;
  url: string;
  state: 'active' | 'paused';
  created_at: string;
  failing_since: string | null;
  last_error: string | null;
  paused_at: string | null;
}

interface Delivery {
  id: string;
  event_id: string;
  webhook_id: string;
  attempted_at: string;
  outcome: 'delivered' | 'failed';
  status: number | null;
  error: string | null;
  duration_ms: number;
}

function Deliveries({ stream }: { stream: Stream }) {
  const { data, error, reload } = useLoad(
    () => authed<{ data: Delivery[] }>('GET', `/v1/auditevents/streams/${encodeURIComponent(stream.id)}/deliveries`),
    [stream.id],
  );
  if (error) return <Alert tone="error">{describeError(error)}</Alert>;
  if (!data) return <p className="muted">Loading…</p>;
  return (
    <div className="stack-tight">
      {data.data.length === 0 ? (
        <p className="muted">No delivery yet.</p>
      ) : (
        <ul className="rows" aria-label={`Deliveries to ${stream.url}`}>
          {data.data.map((delivery) => (
            <li key={delivery.id} className="row" data-outcome={delivery.outcome}>
              <div className="row-main">
                <div className={delivery.outcome === 'failed' ? 'row-title event-warning' : 'row-title'}>
                  {delivery.outcome === 'delivered' ? 'Delivered' : 'Failed'} event {delivery.event_id}
                  {delivery.status !== null ? ` (HTTP ${delivery.status})` : ''}
                </div>
                <div className="row-meta">
                  <span>{formatDateTime(delivery.attempted_at)}</span>
                  <span>{delivery.duration_ms} ms</span>
                  <code>{delivery.webhook_id}</code>
                  {delivery.error && <span>{delivery.error}</span>}
                </div>
              </div>
            </li>
          ))}
        </ul>
      )}
      <div>
        <button className="button button-link" type="button" onClick={reload}>
          Refresh deliveries
        </button>
      </div>
    </div>
  );
}

/** The company's security-event streams: add one (its secret shown once), see their state and deliveries, remove. */
export function EventStreams() {
  const { data, error, reload } = useLoad(
    () => authed<{ data: Stream[] }>('GET', '/v1/auditevents/streams?per_page=100'),
    [],
  );
  const [url, setUrl] = useState('');
  const [created, setCreated] = useState<{ id: string; url: string; secret: string } | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [message, setMessage] = useState<{ tone: 'error' | 'success'; text: string } | null>(null);

  const add = async (event: FormEvent) => {
    event.preventDefault();
    setBusy('add');
    setMessage(null);
    try {
      setCreated(await authed<{ id: string; url: string; secret: string }>('POST', '/v1/auditevents/streams', { url }));
      setUrl('');
      reload();
    } catch (e) {
      setMessage({ tone: 'error', text: describeError(e) });
    } finally {
      setBusy(null);
    }
  };

  const remove = async (stream: Stream) => {
    setBusy(stream.id);
    setMessage(null);
    try {
      await authed<void>('DELETE', `/v1/auditevents/streams/${encodeURIComponent(stream.id)}`);
      setMessage({ tone: 'success', text: `Events are no longer sent to ${stream.url}.` });
      if (created?.id === stream.id) setCreated(null);
    } catch (e) {
      setMessage({ tone: 'error', text: describeError(e) });
    } finally {
      setBusy(null);
      setConfirming(null);
      reload();
    }
  };

  return (
    <section className="card" aria-labelledby="streams-title">
      <h2 id="streams-title">Event streams</h2>
      <p className="muted">
        Every event of this company is also sent to these URLs, signed (Standard Webhooks), retried for 24 hours.
      </p>
      {created && (
        <div className="secret" role="status">
          <p>
            <strong>Copy the signing secret now.</strong> It is shown only this once.
          </p>
          <div className="copy-row">
            <label htmlFor="new-stream-secret" className="visually-hidden">
              Signing secret
            </label>
            <input
              id="new-stream-secret"
              className="mono"
              readOnly
              value={created.secret}
              onFocus={(e) => e.target.select()}
            />
            <CopyButton value={created.secret} label="Copy secret" sourceId="new-stream-secret" />
          </div>
          <button className="button button-link" type="button" onClick={() => setCreated(null)}>
            I have copied it
          </button>
        </div>
      )}
      <form onSubmit={(e) => void add(e)} className="stack-tight add-stream">
        <div className="field">
          <label htmlFor="stream-url">Receiver URL</label>
          <input
            id="stream-url"
            type="url"
            required
            maxLength={2048}
            placeholder="https://siem.example.com/hooks/staff-auth"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
          />
        </div>
        <div>
          <button className="button button-primary" type="submit" disabled={busy !== null}>
            {busy === 'add' ? 'Adding…' : 'Add stream'}
          </button>
        </div>
      </form>
      {message && <Alert tone={message.tone}>{message.text}</Alert>}
      {error ? (
        <Alert tone="error">{describeError(error)}</Alert>
      ) : !data ? (
        <p className="muted">Loading…</p>
      ) : data.data.length === 0 ? (
        <p className="muted">No stream yet.</p>
      ) : (
        <ul className="rows" aria-label="Streams">
          {data.data.map((stream) => (
            <li key={stream.id} className="row row-wrap" data-stream-id={stream.id}>
              <div className="row-main">
                <div className="row-title">{stream.url}</div>
                <div className="row-meta">
                  <span data-state={stream.state}>
                    {stream.state === 'active' ? 'Active' : `Paused ${formatDateTime(stream.paused_at)}`}
                  </span>
                  <span>Added {formatDateTime(stream.created_at)}</span>
                  {stream.failing_since && <span>Failing since {formatDateTime(stream.failing_since)}</span>}
                  {stream.last_error && <span>Last error: {stream.last_error}</span>}
                </div>
                {open === stream.id && <Deliveries stream={stream} />}
              </div>
              <div className="row-actions">
                <button
                  className="button button-link"
                  type="button"
                  aria-expanded={open === stream.id}
                  onClick={() => setOpen(open === stream.id ? null : stream.id)}
                >
                  {open === stream.id ? 'Hide deliveries' : 'Show deliveries'}
                </button>
                <ConfirmAction
                  armed={confirming === stream.id}
                  busy={busy === stream.id}
                  disabled={busy !== null}
                  label="Remove"
                  busyLabel="Removing…"
                  ariaLabel={`Remove the stream to ${stream.url}`}
                  onArm={() => setConfirming(stream.id)}
                  onCancel={() => setConfirming(null)}
                  onConfirm={() => void remove(stream)}
                />
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
