import { type ReactNode, useEffect, useRef, useState } from 'react';

export { PermissionChips, PermissionPicker } from './permission-picker';

export function Alert({ tone, children }: { tone: 'error' | 'info' | 'warning' | 'success'; children: ReactNode }) {
  // role=alert is announced at once; a quiet status for the rest.
  return (
    <div className={`alert alert-${tone}`} role={tone === 'error' || tone === 'warning' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

/** Copies a secret without showing a prompt; falls back to a selected field where the Clipboard API is missing. */
export function CopyButton({ value, label = 'Copy', sourceId }: { value: string; label?: string; sourceId?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);

  const copy = async () => {
    let ok = false;
    try {
      await navigator.clipboard.writeText(value);
      ok = true;
    } catch {
      const field = sourceId
        ? (document.getElementById(sourceId) as HTMLInputElement | HTMLTextAreaElement | null)
        : null;
      if (field) {
        field.select();
        ok = document.execCommand('copy');
      }
    }
    setState(ok ? 'copied' : 'failed');
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setState('idle'), 2000);
  };

  return (
    <button type="button" className="button button-secondary" onClick={() => void copy()} aria-live="polite">
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Select and copy' : label}
    </button>
  );
}

// Every time carries its zone, in the browser's zone: an expiry at 23:59:59 Vietnam time reads differently elsewhere.
const dateTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  timeZoneName: 'short',
});

export function formatDateTime(iso: string | null): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

export function relative(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso) - now;
  const abs = Math.abs(ms);
  const [value, unit] =
    abs >= 86_400_000
      ? [Math.round(abs / 86_400_000), 'day']
      : abs >= 3_600_000
        ? [Math.round(abs / 3_600_000), 'hour']
        : [Math.max(1, Math.round(abs / 60_000)), 'minute'];
  const text = `${value} ${unit}${value === 1 ? '' : 's'}`;
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}

/** Loads on mount and when `deps` change; `reload` for after a change. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (result) => live && (setData(result), setError(null)),
      (failure: unknown) => live && setError(failure),
    );
    return () => {
      live = false;
    };
  }, [...deps, version]);
  return { data, error, reload: () => setVersion((v) => v + 1) };
}

/**
 * A destructive action that asks once inline (no native dialog): the first button arms it, Confirm runs it,
 * Cancel disarms it. The screen keeps which row is armed and which is busy, so one row acts at a time.
 */
export function ConfirmAction({
  armed,
  busy,
  disabled,
  label,
  busyLabel,
  ariaLabel,
  onArm,
  onCancel,
  onConfirm,
}: {
  armed: boolean;
  busy: boolean;
  disabled: boolean;
  label: string;
  busyLabel: string;
  ariaLabel: string;
  onArm(): void;
  onCancel(): void;
  onConfirm(): void;
}) {
  if (!armed) {
    return (
      <button
        className="button button-secondary"
        type="button"
        disabled={disabled}
        aria-label={ariaLabel}
        onClick={onArm}
      >
        {label}
      </button>
    );
  }
  return (
    <>
      <button className="button button-danger" type="button" disabled={disabled} onClick={onConfirm}>
        {busy ? busyLabel : 'Confirm'}
      </button>
      <button className="button button-secondary" type="button" onClick={onCancel}>
        Cancel
      </button>
    </>
  );
}

/** The account's current password, as every form that must prove the person asks for it. */
export function CurrentPasswordField({
  id,
  label = 'Current password',
  value,
  onChange,
}: {
  id: string;
  label?: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="password"
        autoComplete="current-password"
        required
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </div>
  );
}

/** A 6-digit code from the authenticator app. */
export function AppCodeField({
  id,
  value,
  onChange,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>Code from the app</label>
      <input
        id={id}
        inputMode="numeric"
        autoComplete="one-time-code"
        required
        pattern="[0-9]{6}"
        maxLength={6}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </div>
  );
}
