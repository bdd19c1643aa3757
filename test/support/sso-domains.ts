import type { DnsServer } from './dns-server';

export interface DomainView {
  domain: string;
  verified: boolean;
  dns_txt: { name: string; value: string };
  error?: string;
}

type Answer = { status: number; body: any };

/**
 * Proves a connection's e-mail domains the way a company does: publishes each unverified domain's challenge as
 * the TXT record the connection's answer names (on the test's own DNS server), then asks the service to look
 * (`POST /v1/sso/connection/domains/verify`). `connection` is a GET or PUT answer; `verify` makes the request
 * with the caller's credential. Answers the verify answer, every listed domain verified.
 */
export async function proveDomains(
  dns: DnsServer,
  connection: { email_domains: DomainView[] },
  verify: () => Promise<Answer>,
): Promise<{ email_domains: DomainView[] }> {
  for (const domain of connection.email_domains) {
    if (!domain.verified) await dns.publish(domain.dns_txt.name, domain.dns_txt.value);
  }
  const answer = await verify();
  if (answer.status !== 200) throw new Error(`verify answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  const unproven = (answer.body.email_domains as DomainView[]).filter((domain) => !domain.verified);
  if (unproven.length > 0) throw new Error(`domains left unproven: ${JSON.stringify(unproven)}`);
  return answer.body;
}

/** The body of `PUT /v1/sso/connection` the tests send: this provider and client, these domains, JIT off. */
export function connectionBody(
  issuer: string,
  domains: string[],
  overrides: { client_id?: string; client_secret?: string; enforced?: boolean; jit?: string[] } = {},
) {
  return {
    issuer,
    client_id: overrides.client_id ?? 'staff-auth',
    client_secret: overrides.client_secret ?? 'a-client-secret-of-the-test',
    email_domains: domains,
    enforced: overrides.enforced ?? false,
    jit: { enabled: overrides.jit !== undefined, permissions: overrides.jit ?? [] },
  };
}
