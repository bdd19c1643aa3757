import { randomBytes } from 'node:crypto';
import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ANONYMOUS } from '../../audit/recorder/audit-actor';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import { sha256Hex } from '../auth/credentials/sha256';
import { SsoSecretBox } from '../../platform/keys/secret-boxes';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { normalizeEmail } from '../../accounts/employee/employee.service';
import { LoginPolicy } from '../sessions/login-policy';
import { type ClientRef, type ProviderIdentity, ProviderUnavailable, RelyingParty } from './relying-party';
import { connectionOf, hasProvenDomain, type SsoConnection } from './sso-connections';
import { insertCode, returnToOf, type SsoFlow, takeFlow } from './sso-flows';
import { inTransactionRetryingRace, provision } from './sso-provisioning';

/** docs/contract.md: a one-time `sso_code` lives 60 seconds. */
export const SSO_CODE_TTL_MS = 60 * 1000;

/** A failure answered to the browser as `#sso_error=<code>`, its reason kept in the `login.failed` event. */
class SsoFailure extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** The connection's client credentials, its secret opened only to call the provider. */
export function clientRefOf(box: SsoSecretBox, connection: SsoConnection): ClientRef {
  const opened = box.open(connection.sealedSecret);
  if (!opened) throw new Error(`the SSO client secret of company ${connection.companyId} cannot be opened`);
  return { issuer: connection.issuer, clientId: connection.clientId, clientSecret: opened.plain };
}

/**
 * The e-mail a provider may speak for: one of the connection's proven domains (a listed but unproven domain is
 * anybody's claim), with `email_verified: true`, or with no such claim at all as Entra ID sends work accounts'
 * e-mails (the company proved the domain and runs the provider). `email_verified: false` is always refused.
 */
async function acceptedEmail(
  manager: EntityManager,
  identity: ProviderIdentity,
  connection: SsoConnection,
): Promise<string> {
  if (!identity.email) throw new SsoFailure(ErrorCode.InvalidCredentials, 'email_missing');
  if (identity.emailVerified === false) throw new SsoFailure(ErrorCode.InvalidCredentials, 'email_not_verified');
  const email = normalizeEmail(identity.email);
  if (!(await hasProvenDomain(manager, connection.companyId, email))) {
    const listed = connection.emailDomains.includes(email.slice(email.lastIndexOf('@') + 1));
    throw new SsoFailure(
      ErrorCode.InvalidCredentials,
      listed ? 'email_domain_not_verified' : 'email_domain_not_connected',
    );
  }
  return email;
}

const withFragment = (returnTo: string, name: string, value: string) =>
  `${returnTo}#${name}=${encodeURIComponent(value)}`;

/** The provider's answer at the redirect URI → a one-time code for the browser that started the flow. */
@Injectable()
export class SsoCallbackService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly policy: LoginPolicy,
    private readonly relyingParty: RelyingParty,
    private readonly box: SsoSecretBox,
    private readonly audit: AuditRecorder,
    private readonly clock: Clock,
  ) {}

  /**
   * Answers where to send the browser next: `return_to` with a one-time code or an error code in the fragment.
   * A flow another browser started (no binding cookie, or another) does not finish here: `error_login_ticket_invalid`,
   * and the flow is left as it was. A state never issued has no `return_to`: 400.
   */
  async callback(
    query: Record<string, unknown>,
    search: string,
    browserHash: string,
    client: ClientInfo,
  ): Promise<string> {
    const state = typeof query.state === 'string' ? query.state : '';
    const stateHash = sha256Hex(state);
    const now = this.clock.now();
    const flow = await takeFlow(this.dataSource.manager, stateHash, browserHash, now);
    if (!flow) {
      const returnTo = state ? await returnToOf(this.dataSource.manager, stateHash) : null;
      if (!returnTo) {
        throw new ApiError(ErrorCode.LoginTicketInvalid, HttpStatus.BAD_REQUEST, 'Unknown single sign-on state.');
      }
      return withFragment(returnTo, 'sso_error', ErrorCode.LoginTicketInvalid);
    }
    try {
      const code = await this.finish(flow, state, query, search, client, now);
      return withFragment(flow.returnTo, 'sso_code', code);
    } catch (error) {
      if (!(error instanceof SsoFailure)) throw error;
      await this.audit.record(this.dataSource.manager, {
        type: 'login.failed',
        companyId: flow.companyId,
        actor: ANONYMOUS,
        ip: client.ip,
        userAgent: client.userAgent,
        details: { method: 'sso', reason: error.reason, error: error.code },
      });
      return withFragment(flow.returnTo, 'sso_error', error.code);
    }
  }

  private async finish(
    flow: SsoFlow,
    state: string,
    query: Record<string, unknown>,
    search: string,
    client: ClientInfo,
    now: Date,
  ): Promise<string> {
    const connection = await connectionOf(this.dataSource.manager, flow.companyId);
    if (!connection) throw new SsoFailure(ErrorCode.NotFound, 'connection_removed');
    if (query.error !== undefined) {
      throw new SsoFailure(ErrorCode.InvalidCredentials, `provider_error:${String(query.error)}`.slice(0, 64));
    }
    let identity: ProviderIdentity;
    try {
      // The callback as the provider addressed it (the flow's redirect URI), whichever instance it reached.
      const asAddressed = new URL(flow.redirectUri);
      asAddressed.search = search;
      identity = await this.relyingParty.finish(clientRefOf(this.box, connection), asAddressed, {
        state,
        nonce: flow.nonce,
        codeVerifier: flow.codeVerifier,
        redirectUri: flow.redirectUri,
      });
    } catch (error) {
      if (error instanceof ProviderUnavailable) {
        throw new SsoFailure(ErrorCode.ServiceUnavailable, 'provider_unavailable');
      }
      throw new SsoFailure(ErrorCode.InvalidCredentials, `id_token_invalid: ${(error as Error).message}`.slice(0, 200));
    }
    const email = await acceptedEmail(this.dataSource.manager, identity, connection);
    const code = randomBytes(32).toString('base64url');
    await inTransactionRetryingRace(this.dataSource, async (manager) => {
      const person = { email, name: identity.name };
      const employeeId = await provision(manager, this.audit, this.policy, connection, person, client);
      if (employeeId === null) throw new SsoFailure(ErrorCode.CompanyNotMember, 'not_member');
      const grant = { companyId: connection.companyId, employeeId, issuer: identity.issuer, sub: identity.sub };
      await insertCode(
        manager,
        sha256Hex(code),
        { ...grant, sid: identity.sid, browserHash: flow.browserHash },
        new Date(now.getTime() + SSO_CODE_TTL_MS),
      );
    });
    return code;
  }
}
