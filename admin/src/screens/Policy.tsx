import { type FormEvent, useEffect, useState } from 'react';
import { ApiError, type CompanyPolicy, describeError, type FieldError } from '../api';
import { Alert, useLoad } from '../components';
import { authed } from '../session';

/** The form's text, sent as typed: the service checks each field and its 400 names the ones it refused. */
interface Draft {
  mfa_required: boolean;
  session_days: string;
  idle_timeout_minutes: string;
  ip_allowlist: string;
}

const toDraft = (policy: CompanyPolicy): Draft => ({
  mfa_required: policy.mfa_required,
  session_days: String(policy.session_days),
  idle_timeout_minutes: policy.idle_timeout_minutes === null ? '' : String(policy.idle_timeout_minutes),
  ip_allowlist: policy.ip_allowlist.join('\n'),
});

/** A whole number as a number; anything else as typed, for the service to name what is wrong with it. */
const integerOr = (text: string): number | string => (/^-?\d{1,9}$/.test(text.trim()) ? Number(text) : text.trim());

function toBody(draft: Draft) {
  const lines = draft.ip_allowlist
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  return {
    lines,
    body: {
      mfa_required: draft.mfa_required,
      session_days: integerOr(draft.session_days),
      idle_timeout_minutes: draft.idle_timeout_minutes.trim() === '' ? null : integerOr(draft.idle_timeout_minutes),
      ip_allowlist: lines,
    },
  };
}

const FIELDS = ['session_days', 'idle_timeout_minutes', 'ip_allowlist'] as const;
type Field = (typeof FIELDS)[number];

/** Each 400 detail under its field; `ip_allowlist[2]` says which line (as typed, blank lines left out). */
function byField(details: FieldError[], lines: string[]): Partial<Record<Field, string[]>> {
  const out: Partial<Record<Field, string[]>> = {};
  for (const detail of details) {
    const entry = /^ip_allowlist\[(\d+)\]$/.exec(detail.field);
    const field = (entry ? 'ip_allowlist' : detail.field) as Field;
    const text = entry
      ? `Line ${Number(entry[1]) + 1} (${lines[Number(entry[1])] ?? ''}): ${detail.message}`
      : detail.message;
    (out[field] ??= []).push(text);
  }
  return out;
}

function Problems({ id, messages }: { id: string; messages?: string[] }) {
  if (!messages?.length) return null;
  return (
    <ul id={id} className="field-errors">
      {messages.map((message) => (
        <li key={message}>{message}</li>
      ))}
    </ul>
  );
}

/**
 * The company's policy (docs/contract.md "Company policies and roles"), for holders of `*`: a second factor for
 * everyone, how many days a login lasts, the idle time-out, and the networks the company's credentials work from.
 * Saving is a step-up action; the service checks every field and the page shows its messages under each.
 */
export function Policy() {
  const { data, error } = useLoad(() => authed<CompanyPolicy>('GET', '/v1/company/policy'), []);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [busy, setBusy] = useState(false);
  const [problems, setProblems] = useState<Partial<Record<Field, string[]>>>({});
  const [result, setResult] = useState<{ tone: 'error' | 'success'; text: string } | null>(null);
  useEffect(() => {
    if (data) setDraft(toDraft(data));
  }, [data]);

  if (error) return <Alert tone="error">{describeError(error)}</Alert>;
  if (!draft) return <p className="muted">Loading…</p>;
  const set = (change: Partial<Draft>) => setDraft({ ...draft, ...change });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setResult(null);
    setProblems({});
    const { lines, body } = toBody(draft);
    try {
      const saved = await authed<CompanyPolicy>('PUT', '/v1/company/policy', body);
      setDraft(toDraft(saved));
      setResult({
        tone: 'success',
        text: 'The policy is saved. It applies at once on every server; sessions it refuses have ended.',
      });
    } catch (e) {
      if (e instanceof ApiError && e.code === 'error_validation' && e.details.length > 0) {
        const known = e.details.filter((d) => FIELDS.some((f) => d.field === f || d.field.startsWith(`${f}[`)));
        const other = e.details.filter((d) => !known.includes(d)).map((d) => d.message);
        setProblems(byField(known, lines));
        const text = known.length > 0 ? 'Nothing was saved: correct the fields marked below.' : 'Nothing was saved.';
        setResult({ tone: 'error', text: [text, ...other].join(' ') });
      } else setResult({ tone: 'error', text: describeError(e) });
    } finally {
      setBusy(false);
    }
  };

  const invalid = (field: Field) =>
    problems[field]?.length ? { 'aria-invalid': true, 'aria-describedby': `${field}-problems` } : {};

  return (
    <section className="card" aria-labelledby="policy-title">
      <h2 id="policy-title">Company policy</h2>
      <p className="muted">
        Applies to everyone in this company, on every way in. It can only tighten what the service allows: a login lasts
        at most 14 days.
      </p>
      <form onSubmit={(e) => void submit(e)} className="stack-tight" noValidate>
        {result && <Alert tone={result.tone}>{result.text}</Alert>}
        <div className="field">
          <label className="checkbox">
            <input
              type="checkbox"
              checked={draft.mfa_required}
              onChange={(e) => set({ mfa_required: e.target.checked })}
            />{' '}
            Require a second factor (an authenticator app or a passkey) from everyone
          </label>
          <p className="hint">
            A password login then also needs the app’s code or is made with a passkey; single sign-on counts. Someone
            without a second factor can only set one up until they log in again with it.
          </p>
        </div>
        <div className="field-grid">
          <div className="field">
            <label htmlFor="policy-session-days">Days a login lasts</label>
            <input
              id="policy-session-days"
              inputMode="numeric"
              value={draft.session_days}
              onChange={(e) => set({ session_days: e.target.value })}
              {...invalid('session_days')}
            />
            <span className="hint">1 to 14; it ends at 23:59:59 Vietnam time on the last day.</span>
            <Problems id="session_days-problems" messages={problems.session_days} />
          </div>
          <div className="field">
            <label htmlFor="policy-idle">Idle time-out (minutes)</label>
            <input
              id="policy-idle"
              inputMode="numeric"
              placeholder="Never"
              value={draft.idle_timeout_minutes}
              onChange={(e) => set({ idle_timeout_minutes: e.target.value })}
              {...invalid('idle_timeout_minutes')}
            />
            <span className="hint">15 to 10,080 (a week); empty: a session unused for a while stays.</span>
            <Problems id="idle_timeout_minutes-problems" messages={problems.idle_timeout_minutes} />
          </div>
        </div>
        <div className="field">
          <label htmlFor="policy-ip">Allowed networks</label>
          <textarea
            id="policy-ip"
            rows={4}
            spellCheck={false}
            placeholder="Anywhere"
            value={draft.ip_allowlist}
            onChange={(e) => set({ ip_allowlist: e.target.value })}
            {...invalid('ip_allowlist')}
          />
          <span className="hint">
            One IPv4 or IPv6 network per line (<code>203.0.113.0/24</code>, <code>2001:db8::/32</code>); empty:
            anywhere. Your own address must be in the list.
          </span>
          <Problems id="ip_allowlist-problems" messages={problems.ip_allowlist} />
        </div>
        <div>
          <button className="button button-primary" type="submit" disabled={busy}>
            {busy ? 'Saving…' : 'Save policy'}
          </button>
        </div>
      </form>
    </section>
  );
}
