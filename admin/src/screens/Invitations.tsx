import { useState } from 'react';
import { describeError } from '../api';
import { Alert, ConfirmAction, formatDateTime, PermissionChips, useLoad } from '../components';
import { authed } from '../session';

interface OpenInvitation {
  id: string;
  email: string;
  permissions: string[];
  created_at: string;
  expires_at: string;
}

const PER_PAGE = 100;

/**
 * The company's open invitations (never their codes, which the service keeps only as hashes), each revocable
 * after a confirmation. `version` changes when the screen created one, so the list shows it at once.
 */
export function OpenInvitations({ canWrite, version }: { canWrite: boolean; version: number }) {
  const { data, error, reload } = useLoad(
    () => authed<{ data: OpenInvitation[]; total: number }>('GET', `/v1/users/invitations?per_page=${PER_PAGE}`),
    [version],
  );
  const [armed, setArmed] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ tone: 'error' | 'success'; text: string } | null>(null);

  const revoke = async (invitation: OpenInvitation) => {
    setBusy(true);
    setResult(null);
    try {
      await authed('DELETE', `/v1/users/invitations/${invitation.id}`);
      setArmed(null);
      setResult({ tone: 'success', text: `The invitation for ${invitation.email} is revoked.` });
      reload();
    } catch (e) {
      setResult({ tone: 'error', text: describeError(e) });
    } finally {
      setBusy(false);
    }
  };

  if (error) return <Alert tone="error">{describeError(error)}</Alert>;
  if (!data) return <p className="muted">Loading…</p>;
  return (
    <div className="stack-tight">
      {result && <Alert tone={result.tone}>{result.text}</Alert>}
      {data.data.length === 0 ? (
        <p className="muted">No open invitations.</p>
      ) : (
        <ul className="rows" aria-label="Open invitations">
          {data.data.map((invitation) => (
            <li key={invitation.id} className="row row-wrap" data-invitation-id={invitation.id}>
              <div className="row-main">
                <div className="row-title">{invitation.email}</div>
                <div className="row-meta">
                  <span>Expires {formatDateTime(invitation.expires_at)}</span>
                </div>
                <PermissionChips permissions={invitation.permissions} />
              </div>
              {canWrite && (
                <div className="row-actions">
                  <ConfirmAction
                    armed={armed === invitation.id}
                    busy={busy && armed === invitation.id}
                    disabled={busy || (armed !== null && armed !== invitation.id)}
                    label="Revoke"
                    busyLabel="Revoking…"
                    ariaLabel={`Revoke the invitation for ${invitation.email}`}
                    onArm={() => setArmed(invitation.id)}
                    onCancel={() => setArmed(null)}
                    onConfirm={() => void revoke(invitation)}
                  />
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      {data.total > data.data.length && (
        <p className="muted">
          Showing the newest {data.data.length} of {data.total} open invitations.
        </p>
      )}
    </div>
  );
}
