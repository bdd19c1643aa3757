import { type ReactNode, useState } from 'react';
import { describeError } from '../api';
import { Alert, ConfirmAction, CopyButton } from '../components';
import { authed } from '../session';

/** A code the service shows once: displayed with a copy button until the administrator dismisses it. */
export function ShownOnce({ label, code, onDismiss }: { label: string; code: string; onDismiss(): void }) {
  return (
    <div className="stack-tight shown-once" role="status">
      <p>
        <strong>{label}</strong> It is shown only now: hand it over privately.
      </p>
      <div className="button-row">
        <input id="shown-once-code" className="code-field" readOnly value={code} aria-label={label} />
        <CopyButton value={code} sourceId="shown-once-code" />
        <button className="button button-link" type="button" onClick={onDismiss}>
          Done
        </button>
      </div>
    </div>
  );
}

type Action = 'remove' | 'reset' | 'mfa';

/**
 * Remove (after a confirmation), issue a password-reset code, turn TOTP off: one employee's row actions, after
 * the ones the screen puts first (`children`), in one row.
 */
export function EmployeeActions({
  employee,
  self = false,
  onChanged,
  children,
}: {
  employee: { id: number; name: string; email: string; mfa?: boolean };
  /** One's own row: no reset, TOTP or removal here (the Account screen has them). */
  self?: boolean;
  onChanged(message: string): void;
  children?: ReactNode;
}) {
  const who = employee.name || employee.email;
  const [armed, setArmed] = useState<Action | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [code, setCode] = useState<string | null>(null);

  const run = async (action: Action) => {
    setBusy(true);
    setError(null);
    try {
      if (action === 'remove') {
        await authed('DELETE', `/v1/users/${employee.id}`);
        onChanged(`${who} is removed from this company.`);
      } else if (action === 'reset') {
        setCode((await authed<{ code: string }>('POST', `/v1/users/${employee.id}/passwordreset`)).code);
      } else {
        await authed('POST', `/v1/users/${employee.id}/mfa/reset`);
        onChanged(`Two-step verification is off for ${who}.`);
      }
      setArmed(null);
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };

  const confirm = (action: Action, label: string, busyLabel: string) => (
    <ConfirmAction
      armed={armed === action}
      busy={busy && armed === action}
      disabled={busy || (armed !== null && armed !== action)}
      label={label}
      busyLabel={busyLabel}
      ariaLabel={`${label} ${who}`}
      onArm={() => setArmed(action)}
      onCancel={() => setArmed(null)}
      onConfirm={() => void run(action)}
    />
  );

  return (
    <div className="stack-tight row-side">
      {error && <Alert tone="error">{error}</Alert>}
      {code && (
        <ShownOnce
          label={`Password-reset code for ${who} (valid 24 hours, once).`}
          code={code}
          onDismiss={() => setCode(null)}
        />
      )}
      <div className="row-actions">
        {children}
        {!self && confirm('reset', 'Reset code', 'Issuing…')}
        {!self && employee.mfa && confirm('mfa', 'Turn off TOTP', 'Turning off…')}
        {!self && confirm('remove', 'Remove', 'Removing…')}
      </div>
    </div>
  );
}
