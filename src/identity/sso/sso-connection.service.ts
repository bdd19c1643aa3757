import { Inject, Injectable } from '@nestjs/common';
import { DataSource, QueryFailedError } from 'typeorm';
import { requestContext } from '../../audit/recorder/audit-actor';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import type { Principal } from '../../access/rules/principal';
import { SealsColumn } from '../../platform/keys/sealed-columns';
import { SsoSecretBox } from '../../platform/keys/secret-boxes';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import type { ClientInfo } from '../../platform/common/http/client-info';
import type { AppLogger } from '../../platform/common/logging/logger';
import { APP_LOGGER } from '../../platform/common/logging/logging.module';
import { grantableBy } from '../../access/permissions/grantable';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import { DomainProver } from './domain-prover';
import type { PutSsoConnectionDto, SsoConnectionDto } from './dto/sso.dto';
import { RelyingParty } from './relying-party';
import {
  connectionOf,
  deleteConnection,
  saveConnection,
  SSO_CLIENT_SECRETS,
  type SsoConnection,
} from './sso-connections';
import { challengeName, claimsOf, type DomainClaim, domainsTakenElsewhere, markProven } from './sso-domains';
import { endSessionsOutsideProvider } from './sso-policy';

const invalidIssuer = (message: string) => ApiError.validation(message, [{ field: 'issuer', message }]);
/**
 * One answer whatever went wrong reading the issuer (refused address, closed port, timeout, TLS, not JSON, wrong
 * issuer): the route must not tell its caller anything about the network behind it.
 */
const UNREADABLE_ISSUER =
  'issuer: no OpenID Connect discovery document could be read from it (it must answer over https, at a public ' +
  'address, with its own issuer)';
const noConnection = () => ApiError.notFound('This company has no single sign-on connection.');
const sqlState = (error: unknown) =>
  error instanceof QueryFailedError ? (error.driverError as { code?: string } | undefined)?.code : undefined;
const isUniqueViolation = (error: unknown) => sqlState(error) === '23505';
/**
 * Two companies proving one domain at once: the one-owner index refuses the later (23505), or the two
 * transactions wait on each other (each holds a row the other deletes or indexes) and PostgreSQL ends one
 * (40P01), after which the other goes through.
 */
const lostProofRace = (error: unknown) => ['23505', '40P01'].includes(sqlState(error) ?? '');

/**
 * The company's connection to its identity provider: read (`sso:manage`); replace after discovery, remove, and
 * prove its e-mail domains by DNS (`*`, step-up).
 */
@SealsColumn(SSO_CLIENT_SECRETS)
@Injectable()
export class SsoConnectionService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly box: SsoSecretBox,
    private readonly relyingParty: RelyingParty,
    private readonly prover: DomainProver,
    private readonly audit: AuditRecorder,
    private readonly clock: Clock,
    private readonly bus: RevocationBus,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async get(companyId: number, redirectUri: string | null): Promise<SsoConnectionDto> {
    const connection = await connectionOf(this.dataSource.manager, companyId);
    if (!connection) throw noConnection();
    return view(connection, await claimsOf(this.dataSource.manager, companyId), redirectUri);
  }

  async put(
    principal: Principal,
    input: PutSsoConnectionDto,
    client: ClientInfo,
    redirectUri: string | null,
  ): Promise<SsoConnectionDto> {
    const issuer = input.issuer.trim().replace(/\/+$/, '');
    const problem = this.relyingParty.issuerProblem(issuer);
    if (problem) throw invalidIssuer(problem);
    const permissions = grantableBy(
      principal,
      input.jit.permissions,
      'JIT provisioning can grant only permissions you hold yourself.',
    );
    try {
      // Read now, not from the cache: saving is when an administrator learns the issuer is wrong.
      const metadata = await this.relyingParty.metadata(issuer, true);
      if (metadata.issuer !== issuer) throw new Error(`the document names issuer ${metadata.issuer}`);
    } catch (error) {
      // The reason is for the operator's log only (it names what the network answered), never for the caller.
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn({ issuer, reason }, 'sso: issuer refused');
      throw invalidIssuer(UNREADABLE_ISSUER);
    }
    const connection: SsoConnection = {
      companyId: principal.companyId,
      issuer,
      clientId: input.client_id,
      sealedSecret: this.box.seal(input.client_secret),
      emailDomains: [...new Set(input.email_domains.map((domain) => domain.toLowerCase()))],
      enforced: input.enforced,
      jit: { enabled: input.jit.enabled, permissions },
    };
    const { ended, claims } = await this.dataSource
      .transaction(async (manager) => {
        const taken = await domainsTakenElsewhere(manager, principal.companyId, connection.emailDomains);
        if (taken.length > 0) throw ApiError.conflict(`E-mail domain proven by another company: ${taken[0]}`);
        await saveConnection(manager, connection, this.clock.now(), principal.employeeId);
        await this.audit.record(manager, {
          type: 'sso.connection_changed',
          companyId: principal.companyId,
          ...requestContext(principal, client),
          details: { action: 'put', ...changeDetails(connection) },
        });
        const ended = connection.enforced
          ? await endSessionsOutsideProvider(manager, this.audit, connection, principal, client, this.clock.now())
          : [];
        return { ended, claims: await claimsOf(manager, principal.companyId) };
      })
      .catch((error: unknown) => {
        // Another company proved the domain between the check and the save: its unique index decides.
        if (isUniqueViolation(error)) throw ApiError.conflict('E-mail domain proven by another company.');
        throw error;
      });
    await Promise.all(ended.map((sessionId) => this.bus.publish({ type: 'session', sessionId })));
    return view(connection, claims, redirectUri);
  }

  /**
   * Looks each unproven domain's TXT record up now; a domain whose record holds its challenge becomes proven, and
   * other companies' unproven claims on it are dropped. The answer is the connection, an unproven domain saying
   * why in `error`.
   */
  async verifyDomains(principal: Principal, client: ClientInfo, redirectUri: string | null): Promise<SsoConnectionDto> {
    const manager = this.dataSource.manager;
    const connection = await connectionOf(manager, principal.companyId);
    if (!connection) throw noConnection();
    const errors = new Map<string, string>();
    const pending = (await claimsOf(manager, principal.companyId)).filter((claim) => !claim.verified);
    const checked = await Promise.all(
      pending.map(async (claim) => ({ claim, problem: await this.prover.problem(claim.domain, claim.challenge) })),
    );
    for (const { claim, problem } of checked) {
      if (problem) errors.set(claim.domain, problem);
      else if (!(await this.prove(principal, client, claim.domain))) {
        errors.set(claim.domain, 'Another company proved this domain first.');
      }
    }
    return view(connection, await claimsOf(manager, principal.companyId), redirectUri, errors);
  }

  /** Records the proof (and the claims it drops); false when another company proved the domain first. */
  private async prove(principal: Principal, client: ClientInfo, domain: string): Promise<boolean> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        const dropped = await markProven(manager, principal.companyId, domain, this.clock.now());
        if (dropped === null) return false;
        await this.audit.record(manager, {
          type: 'sso.connection_changed',
          companyId: principal.companyId,
          ...requestContext(principal, client),
          details: { action: 'domain_verified', domain },
        });
        return true;
      });
    } catch (error) {
      if (lostProofRace(error)) return false;
      throw error;
    }
  }

  async delete(principal: Principal, client: ClientInfo): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      if (!(await deleteConnection(manager, principal.companyId))) throw noConnection();
      await this.audit.record(manager, {
        type: 'sso.connection_changed',
        companyId: principal.companyId,
        ...requestContext(principal, client),
        details: { action: 'delete' },
      });
    });
  }
}

const changeDetails = (connection: SsoConnection) => ({
  issuer: connection.issuer,
  client_id: connection.clientId,
  email_domains: connection.emailDomains,
  enforced: connection.enforced,
  jit: connection.jit,
});

function view(
  connection: SsoConnection,
  claims: DomainClaim[],
  redirectUri: string | null,
  errors = new Map<string, string>(),
): SsoConnectionDto {
  return {
    issuer: connection.issuer,
    client_id: connection.clientId,
    email_domains: claims.map((claim) => ({
      domain: claim.domain,
      verified: claim.verified,
      dns_txt: { name: challengeName(claim.domain), value: claim.challenge },
      ...(errors.has(claim.domain) ? { error: errors.get(claim.domain) } : {}),
    })),
    enforced: connection.enforced,
    jit: connection.jit,
    redirect_uri: redirectUri,
  };
}
