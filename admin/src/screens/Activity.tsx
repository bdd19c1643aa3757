import { useEffect, useMemo, useRef, useState } from 'react';
import { type CompanyEmployee, describeError } from '../api';
import { type AuditEvent, describeEvent, EVENT_TYPES } from '../audit-sentences';
import { Alert, formatDateTime, relative, useLoad } from '../components';
import { holds } from '../permissions';
import { authed } from '../session';

/** How often the screen asks for events newer than the ones it shows. */
export const POLL_MS = 3000;
const PAGE = 50;

interface Page {
  data: AuditEvent[];
  next_cursor: string | null;
}

interface Filters {
  type: string;
  person: string;
  role: 'actor' | 'subject';
}

function query(filters: Filters, cursor?: string | null): string {
  const params = new URLSearchParams({ limit: String(PAGE) });
  if (filters.type) params.append('type', filters.type);
  if (filters.person) params.set(filters.role === 'actor' ? 'actor_id' : 'subject_id', filters.person);
  if (cursor) params.set('cursor', cursor);
  return `/v1/auditevents?${params.toString()}`;
}

/** Everyone the filter can offer: the company's employees when the login may list them, and whoever appears. */
function usePeople(held: string[], events: AuditEvent[]) {
  const employees = useLoad(
    () =>
      holds(held, 'users:read')
        ? authed<{ data: CompanyEmployee[] }>('GET', '/v1/users').then((page) => page.data)
        : Promise.resolve([]),
    [],
  );
  return useMemo(() => {
    const people = new Map<string, string>();
    for (const employee of employees.data ?? []) people.set(String(employee.id), employee.email);
    for (const event of events) {
      for (const person of [event.actor, event.subject]) {
        if (person?.kind === 'employee' && person.id !== null && person.email) {
          people.set(String(person.id), person.email);
        }
      }
    }
    return [...people].sort((a, b) => a[1].localeCompare(b[1]));
  }, [employees.data, events]);
}

function EventRow({ event, companyId }: { event: AuditEvent; companyId: number }) {
  const [open, setOpen] = useState(false);
  const failed = event.type === 'login.failed' || event.type === 'session.refresh_reuse';
  return (
    <li className="row row-wrap" data-event-id={event.id} data-event-type={event.type}>
      <div className="row-main">
        <div className={failed ? 'row-title event-warning' : 'row-title'}>{describeEvent(event, companyId)}</div>
        <div className="row-meta">
          <span title={event.occurred_at}>{relative(event.occurred_at)}</span>
          <span>{formatDateTime(event.occurred_at)}</span>
          {event.ip && <span>from {event.ip}</span>}
          <code>{event.type}</code>
        </div>
        {open && (
          <pre className="event-json" aria-label="The event as recorded">
            {JSON.stringify(event, null, 2)}
          </pre>
        )}
      </div>
      <div className="row-actions">
        <button className="button button-link" type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Hide event' : 'Show event'}
        </button>
      </div>
    </li>
  );
}

/** The company's security events, newest first; new ones appear on their own (polled), older ones on demand. */
export function Activity({ held, companyId }: { held: string[]; companyId: number }) {
  const [filters, setFilters] = useState<Filters>({ type: '', person: '', role: 'subject' });
  const [events, setEvents] = useState<AuditEvent[] | null>(null);
  const [older, setOlder] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loadingOlder, setLoadingOlder] = useState(false);
  // Answers to requests made for other filters are dropped.
  const generation = useRef(0);
  // The shown list, also for the poll's closure (which would otherwise see the list of its first render).
  const shown = useRef<AuditEvent[] | null>(null);
  const show = (next: AuditEvent[] | null) => {
    shown.current = next;
    setEvents(next);
  };
  const people = usePeople(held, events ?? []);

  useEffect(() => {
    const mine = ++generation.current;
    let timer: number | undefined;
    show(null);
    setOlder(null);
    setError(null);

    const poll = async (first: boolean) => {
      try {
        if (first || document.visibilityState === 'visible') {
          const page = await authed<Page>('GET', query(filters));
          if (generation.current !== mine) return;
          const known = shown.current ?? [];
          const seen = new Set(known.map((event) => event.id));
          const fresh = page.data.filter((event) => !seen.has(event.id));
          // More new events than one page holds: the list restarts from the newest page.
          const gap = !first && fresh.length === page.data.length && known.length > 0 && page.next_cursor !== null;
          if (first || gap) {
            show(page.data);
            setOlder(page.next_cursor);
          } else if (fresh.length > 0) {
            show([...fresh, ...known]);
          }
          setError(null);
        }
      } catch (failure) {
        if (generation.current === mine) setError(failure);
      }
      if (generation.current === mine) timer = window.setTimeout(() => void poll(false), POLL_MS);
    };
    void poll(true);
    return () => {
      generation.current++;
      window.clearTimeout(timer);
    };
  }, [filters]);

  const loadOlder = async () => {
    const mine = generation.current;
    setLoadingOlder(true);
    try {
      const page = await authed<Page>('GET', query(filters, older));
      if (generation.current !== mine) return;
      show([...(shown.current ?? []), ...page.data]);
      setOlder(page.next_cursor);
    } catch (failure) {
      setError(failure);
    } finally {
      setLoadingOlder(false);
    }
  };

  return (
    <section className="card" aria-labelledby="activity-title">
      <div className="card-header">
        <h2 id="activity-title">Activity</h2>
        <p className="muted">
          Logins, permission and account changes in this company, newest first. New events appear on their own.
        </p>
      </div>
      <div className="field-grid activity-filters">
        <div className="field">
          <label htmlFor="activity-type">What</label>
          <select
            id="activity-type"
            value={filters.type}
            onChange={(e) => setFilters({ ...filters, type: e.target.value })}
          >
            <option value="">Everything</option>
            {EVENT_TYPES.map((option) => (
              <option key={option.type} value={option.type}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="activity-person">Person</label>
          <select
            id="activity-person"
            value={filters.person}
            onChange={(e) => setFilters({ ...filters, person: e.target.value })}
          >
            <option value="">Anyone</option>
            {people.map(([id, email]) => (
              <option key={id} value={id}>
                {email}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="activity-role">Show events</label>
          {/* Whose part in the event the chosen person had; with nobody chosen there is nothing to choose. */}
          <select
            id="activity-role"
            value={filters.role}
            disabled={!filters.person}
            onChange={(e) => setFilters({ ...filters, role: e.target.value as Filters['role'] })}
          >
            <option value="subject">about this person</option>
            <option value="actor">done by this person</option>
          </select>
        </div>
      </div>
      {error ? <Alert tone="error">{describeError(error)}</Alert> : null}
      {!events ? (
        <p className="muted">Loading…</p>
      ) : events.length === 0 ? (
        <p className="muted">No events match.</p>
      ) : (
        <ul className="rows" aria-label="Events" aria-live="polite">
          {events.map((event) => (
            <EventRow key={event.id} event={event} companyId={companyId} />
          ))}
        </ul>
      )}
      {older && (
        <button
          className="button button-secondary"
          type="button"
          disabled={loadingOlder}
          onClick={() => void loadOlder()}
        >
          {loadingOlder ? 'Loading…' : 'Older events'}
        </button>
      )}
    </section>
  );
}
