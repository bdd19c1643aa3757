import { useState } from 'react';
import { describeError } from '../api';
import { Alert, CopyButton } from '../components';
import { authed } from '../session';

export interface SsoDomain {
  domain: string;
  verified: boolean;
  dns_txt: { name: string; value: string };
  /** Why the last verification left it unproven (verify answers only). */
  error?: string;
}

const STATE = {
  verified: { label: 'Verified', className: 'badge badge-verified' },
  pending: { label: 'Pending', className: 'badge badge-pending' },
  error: { label: 'Not verified', className: 'badge badge-error' },
};

/** One half of the record to publish, copyable. */
function TxtField({ part, domain }: { part: 'name' | 'value'; domain: SsoDomain }) {
  const id = `txt-${part}-${domain.domain.replace(/[^a-z0-9]/g, '-')}`;
  return (
    <>
      <dt>TXT record {part}</dt>
      <dd className="copy-row">
        <input id={id} readOnly value={domain.dns_txt[part]} aria-label={`TXT ${part}, ${domain.domain}`} />
        <CopyButton value={domain.dns_txt[part]} sourceId={id} />
      </dd>
    </>
  );
}

const stateOf = (domain: SsoDomain) => (domain.verified ? 'verified' : domain.error ? 'error' : 'pending');

/**
 * The connection's e-mail domains and their proof: the TXT record each pending domain's DNS zone must publish,
 * and Verify, which asks the service to look them up now (`*`, with a fresh proof of the person).
 */
export function SsoDomains({
  domains,
  canChange,
  onVerified,
}: {
  domains: SsoDomain[];
  canChange: boolean;
  onVerified: (domains: SsoDomain[]) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const pending = domains.filter((domain) => !domain.verified).length;

  const verify = async () => {
    setBusy(true);
    setFailure(null);
    try {
      const answer = await authed<{ email_domains: SsoDomain[] }>('POST', '/v1/sso/connection/domains/verify');
      onVerified(answer.email_domains);
    } catch (error) {
      setFailure(describeError(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-labelledby="sso-domains-title">
      <div className="card-header">
        <div>
          <h2 id="sso-domains-title">E-mail domains</h2>
          <p className="muted">
            People of a domain sign in through the provider once the company has proven it holds the domain: publish
            each TXT record in the domain’s DNS zone, then verify. Until then nobody of that domain signs in this way.
          </p>
        </div>
        <button
          className="button button-primary"
          type="button"
          disabled={busy || pending === 0 || !canChange}
          onClick={() => void verify()}
        >
          {busy ? 'Verifying…' : 'Verify'}
        </button>
      </div>
      {failure && <Alert tone="error">{failure}</Alert>}
      {!canChange && <p className="hint">Verifying domains needs the permission * (all permissions).</p>}
      <ul className="rows" aria-label="E-mail domains">
        {domains.map((domain) => {
          const state = STATE[stateOf(domain)];
          return (
            <li key={domain.domain} className="row row-wrap" data-domain={domain.domain}>
              <div className="row-main">
                <div className="row-title">
                  {domain.domain}
                  <span className={state.className}>{state.label}</span>
                </div>
                {domain.error && <p className="domain-error">{domain.error}</p>}
              </div>
              {!domain.verified && (
                <dl className="txt-record">
                  <TxtField part="name" domain={domain} />
                  <TxtField part="value" domain={domain} />
                </dl>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
