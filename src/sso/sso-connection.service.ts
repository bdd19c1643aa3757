import { Injectable } from '@nestjs/common';
import { DataSource, QueryFailedError } from 'typeorm';
import { requestContext } from '../audit/audit-actor';
import { AuditRecorder } from '../audit/audit-recorder.service';
import type { Principal } from '../auth/credentials/principal';
import { SsoSecretBox } from '../auth/mfa/totp-secret-box';
import { Clock } from '../common/clock/clock';
import { ApiError } from '../common/errors/api-error';
import type { ClientInfo } from '../common/http/client-info';
import { grantableBy } from '../permissions/grantable';
import { RevocationBus } from '../revocation/revocation-bus';
import type { PutSsoConnectionDto, SsoConnectionDto } from './dto/sso.dto';
import { ProviderUnavailable, RelyingParty } from './relying-party';
import { endSessionsOutsideProvider } from './sso-policy';
import {
  connectionOf,
  deleteConnection,
  domainsTakenElsewhere,
  saveConnection,
  type SsoConnection,
} from './sso-connections';

const invalidIssuer = (message: string) => ApiError.validation(message, [{ field: 'issuer', message }]);

/** The company's connection to its identity provider (`sso:manage`): read, replace after discovery, remove. */
@Injectable()
export class SsoConnectionService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly box: SsoSecretBox,
    private readonly relyingParty: RelyingParty,
    private readonly audit: AuditRecorder,
    private readonly clock: Clock,
    private readonly bus: RevocationBus,
  ) {}

  async get(companyId: number, redirectUri: string): Promise<SsoConnectionDto> {
    const connection = await connectionOf(this.dataSource.manager, companyId);
    if (!connection) throw ApiError.notFound('This company has no single sign-on connection.');
    return view(connection, redirectUri);
  }

  async put(
    principal: Principal,
    input: PutSsoConnectionDto,
    client: ClientInfo,
    redirectUri: string,
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
      if (metadata.issuer !== issuer) throw new ProviderUnavailable(`the document names issuer ${metadata.issuer}`);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw invalidIssuer(`issuer: no valid OpenID discovery document (${reason})`);
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
    const ended = await this.dataSource
      .transaction(async (manager) => {
        const taken = await domainsTakenElsewhere(manager, principal.companyId, connection.emailDomains);
        if (taken.length > 0)
          throw ApiError.conflict(`E-mail domain already connected to another company: ${taken[0]}`);
        await saveConnection(manager, connection, this.clock.now(), principal.employeeId);
        await this.audit.record(manager, {
          type: 'sso.connection_changed',
          companyId: principal.companyId,
          ...requestContext(principal, client),
          details: { action: 'put', ...changeDetails(connection) },
        });
        if (!connection.enforced) return [];
        return endSessionsOutsideProvider(manager, this.audit, connection, principal, client, this.clock.now());
      })
      .catch((error: unknown) => {
        // Two companies claiming one domain at the same moment: the primary key decides, the loser gets 409.
        if (error instanceof QueryFailedError && (error.driverError as { code?: string })?.code === '23505') {
          throw ApiError.conflict('E-mail domain already connected to another company.');
        }
        throw error;
      });
    await Promise.all(ended.map((sessionId) => this.bus.publish({ type: 'session', sessionId })));
    return view(connection, redirectUri);
  }

  async delete(principal: Principal, client: ClientInfo): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      if (!(await deleteConnection(manager, principal.companyId))) {
        throw ApiError.notFound('This company has no single sign-on connection.');
      }
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

function view(connection: SsoConnection, redirectUri: string): SsoConnectionDto {
  return { ...changeDetails(connection), redirect_uri: redirectUri };
}
