import { randomBytes } from 'node:crypto';
import { HttpStatus, Injectable } from '@nestjs/common';
import * as oidc from 'openid-client';
import { DataSource } from 'typeorm';
import { ANONYMOUS } from '../audit/audit-actor';
import { AuditRecorder } from '../audit/audit-recorder.service';
import { sha256Hex } from '../auth/credentials/sha256';
import { SsoSecretBox } from '../auth/mfa/totp-secret-box';
import { Clock } from '../common/clock/clock';
import { ApiError } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-codes';
import type { ClientInfo } from '../common/http/client-info';
import { AppConfig } from '../config/app-config';
import { normalizeEmail } from '../employee/employee.service';
import { findMember } from '../membership/membership-records';
import { LoginPolicy } from '../sessions/login-policy';
import type { LoginResult } from '../sessions/login-result';
import { LoginService } from '../sessions/login.service';
import { type ClientRef, ProviderUnavailable, RelyingParty } from './relying-party';
import { checkedReturnTo } from './return-to';
import { connectionForDomain, connectionOf, type SsoConnection } from './sso-connections';
import { insertCode, insertFlow, purgeOld, returnToOf, takeCode, takeFlow } from './sso-flows';
import { inTransactionRetryingRace, provision } from './sso-provisioning';

/** docs/contract.md: a flow (state, nonce, PKCE verifier) lives 10 minutes, a one-time `sso_code` 60 seconds. */
export const SSO_FLOW_TTL_MS = 10 * 60 * 1000;
export const SSO_CODE_TTL_MS = 60 * 1000;
const KEEP_SPENT_MS = 24 * 60 * 60 * 1000;

/** A failure answered to the browser as `#sso_error=<code>`. */
class SsoFailure extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const ticketInvalid = () =>
  new ApiError(ErrorCode.LoginTicketInvalid, HttpStatus.BAD_REQUEST, 'The sso_code is unknown, used or expired.');
const providerDown = (detail: string) =>
  new ApiError(
    ErrorCode.ServiceUnavailable,
    HttpStatus.SERVICE_UNAVAILABLE,
    `The identity provider is unavailable: ${detail}`,
  );

/** The SSO login: start (authorization URL), callback (provider's answer → one-time code), exchange (→ session). */
@Injectable()
export class SsoLoginService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relyingParty: RelyingParty,
    private readonly box: SsoSecretBox,
    private readonly login: LoginService,
    private readonly audit: AuditRecorder,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly policy: LoginPolicy,
  ) {}

  async start(
    input: { company_id?: number; email?: string; return_to: string },
    redirectUri: string,
  ): Promise<{ authorization_url: string }> {
    if ((input.company_id === undefined) === (input.email === undefined)) {
      throw ApiError.validation('Give either company_id or email.', [
        { field: 'company_id', message: 'give either company_id or email' },
      ]);
    }
    const returnTo = checkedReturnTo(input.return_to, this.config.corsOrigins);
    const manager = this.dataSource.manager;
    const connection =
      input.company_id !== undefined
        ? await connectionOf(manager, input.company_id)
        : await connectionForDomain(manager, normalizeEmail(input.email!).split('@').pop()!);
    if (!connection) throw ApiError.notFound('No single sign-on connection for this company or e-mail.');
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    let url: string;
    try {
      url = await this.relyingParty.authorizationUrl(this.clientOf(connection), {
        redirectUri,
        state,
        nonce,
        codeVerifier,
      });
    } catch (error) {
      if (error instanceof ProviderUnavailable) throw providerDown(error.message);
      throw error;
    }
    const now = this.clock.now();
    await this.dataSource.transaction(async (tx) => {
      await purgeOld(tx, new Date(now.getTime() - KEEP_SPENT_MS));
      await insertFlow(
        tx,
        sha256Hex(state),
        { companyId: connection.companyId, nonce, codeVerifier, returnTo, redirectUri },
        new Date(now.getTime() + SSO_FLOW_TTL_MS),
      );
    });
    return { authorization_url: url };
  }

  /**
   * The provider sends the browser back here. Answers where to send it next: `return_to` with a one-time code
   * or an error code in the fragment. A state never issued has no `return_to`: 400.
   */
  async callback(query: Record<string, string | undefined>, callbackUrl: URL, client: ClientInfo): Promise<string> {
    const state = typeof query.state === 'string' ? query.state : '';
    const stateHash = sha256Hex(state);
    const now = this.clock.now();
    const flow = await takeFlow(this.dataSource.manager, stateHash, now);
    if (!flow) {
      const returnTo = state ? await returnToOf(this.dataSource.manager, stateHash) : null;
      if (!returnTo) {
        throw new ApiError(ErrorCode.LoginTicketInvalid, HttpStatus.BAD_REQUEST, 'Unknown single sign-on state.');
      }
      return withFragment(returnTo, 'sso_error', ErrorCode.LoginTicketInvalid);
    }
    try {
      const code = await this.finish(flow, { ...query, state }, callbackUrl, client, now);
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
    flow: Awaited<ReturnType<typeof takeFlow>> & object,
    query: Record<string, string | undefined>,
    callbackUrl: URL,
    client: ClientInfo,
    now: Date,
  ): Promise<string> {
    const connection = await connectionOf(this.dataSource.manager, flow.companyId);
    if (!connection) throw new SsoFailure(ErrorCode.NotFound, 'connection_removed');
    if (query.error) throw new SsoFailure(ErrorCode.InvalidCredentials, `provider_error:${query.error}`.slice(0, 64));
    let identity;
    try {
      // The callback as the provider addressed it (the flow's redirect URI), whichever instance it reached.
      const asAddressed = new URL(flow.redirectUri);
      asAddressed.search = callbackUrl.search;
      identity = await this.relyingParty.finish(this.clientOf(connection), asAddressed, {
        state: query.state!,
        nonce: flow.nonce,
        codeVerifier: flow.codeVerifier,
        redirectUri: flow.redirectUri,
      });
    } catch (error) {
      if (error instanceof ProviderUnavailable)
        throw new SsoFailure(ErrorCode.ServiceUnavailable, 'provider_unavailable');
      throw new SsoFailure(ErrorCode.InvalidCredentials, `id_token_invalid: ${(error as Error).message}`.slice(0, 200));
    }
    if (!identity.emailVerified || !identity.email) {
      throw new SsoFailure(ErrorCode.InvalidCredentials, 'email_not_verified');
    }
    const email = normalizeEmail(identity.email);
    if (!connection.emailDomains.includes(email.split('@').pop()!)) {
      throw new SsoFailure(ErrorCode.InvalidCredentials, 'email_domain_not_connected');
    }
    const code = randomBytes(32).toString('base64url');
    await inTransactionRetryingRace(this.dataSource, async (manager) => {
      const person = { email, name: identity.name };
      const employeeId = await provision(manager, this.audit, this.policy, connection, person, client);
      if (employeeId === null) throw new SsoFailure(ErrorCode.CompanyNotMember, 'not_member');
      await insertCode(
        manager,
        sha256Hex(code),
        { companyId: connection.companyId, employeeId, issuer: identity.issuer, sub: identity.sub, sid: identity.sid },
        new Date(now.getTime() + SSO_CODE_TTL_MS),
      );
    });
    return code;
  }

  /** The one-time code → a session with method `sso` (no TOTP: the provider authenticated the person). */
  async exchange(ssoCode: string, client: ClientInfo): Promise<LoginResult> {
    return this.dataSource.transaction(async (manager) => {
      const grant = await takeCode(manager, sha256Hex(ssoCode), this.clock.now());
      if (!grant) throw ticketInvalid();
      const member = await findMember(manager, grant.employeeId, grant.companyId);
      if (!member) {
        throw new ApiError(
          ErrorCode.CompanyNotMember,
          HttpStatus.FORBIDDEN,
          'The account does not belong to this company.',
        );
      }
      return this.login.openSession(manager, member.employee, grant.companyId, client, 'sso', {
        issuer: grant.issuer,
        sub: grant.sub,
        sid: grant.sid,
      });
    });
  }

  private clientOf(connection: SsoConnection): ClientRef {
    const opened = this.box.open(connection.sealedSecret);
    if (!opened) throw new Error(`the SSO client secret of company ${connection.companyId} cannot be opened`);
    return { issuer: connection.issuer, clientId: connection.clientId, clientSecret: opened.plain };
  }
}

function withFragment(returnTo: string, name: string, value: string): string {
  return `${returnTo}#${name}=${encodeURIComponent(value)}`;
}
