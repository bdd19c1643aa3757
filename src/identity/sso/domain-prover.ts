import { Resolver } from 'node:dns/promises';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../platform/config/app-config';
import { challengeName } from './sso-domains';

/** One DNS server's wait per try, and the tries: a silent server costs the verify request about 3 seconds. */
const DNS_TIMEOUT_MS = 1000;
const DNS_TRIES = 2;

/**
 * Proof that a company holds a domain: the TXT record `_staff-auth-challenge.<domain>` holds the company's
 * challenge. Asked now, through DNS_SERVERS or the system's resolver (node's c-ares, which asks DNS and not
 * /etc/hosts). Never throws: a failure is the reason the domain stays unproven.
 */
@Injectable()
export class DomainProver {
  private readonly resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: DNS_TRIES });

  constructor(config: AppConfig) {
    if (config.dnsServers.length > 0) this.resolver.setServers(config.dnsServers);
  }

  /** Why `domain` is not proven by `challenge`, for the administrator; null when it is. */
  async problem(domain: string, challenge: string): Promise<string | null> {
    const name = challengeName(domain);
    let records: string[][];
    try {
      records = await this.resolver.resolveTxt(name);
    } catch (error) {
      return lookupProblem(name, (error as NodeJS.ErrnoException).code);
    }
    // A record longer than 255 bytes arrives in several strings; one record holds the value whole.
    if (records.some((strings) => strings.join('') === challenge)) return null;
    return `The TXT record at ${name} does not hold this domain's token (it has ${records.length} other value${
      records.length === 1 ? '' : 's'
    }).`;
  }
}

function lookupProblem(name: string, code: string | undefined): string {
  switch (code) {
    case 'ENOTFOUND':
    case 'ENODATA':
      return `No TXT record at ${name} yet: publish it, then verify again (DNS changes can take a while to be seen).`;
    case 'ETIMEOUT':
      return `DNS did not answer in time for ${name}; try again later.`;
    default:
      return `The DNS lookup of ${name} failed (${code ?? 'unknown error'}); try again later.`;
  }
}
