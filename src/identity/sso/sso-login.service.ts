import { HttpStatus, Injectable } from '@nestjs/common';
import * as oidc from 'openid-client';
import { DataSource } from 'typeorm';
import { sha256Hex } from '../auth/credentials/sha256';
import { SsoSecretBox } from '../../platform/keys/secret-boxes';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { AppConfig } from '../../platform/config/app-config';
import { normalizeEmail } from '../../accounts/employee/employee.service';
import { findMember } from '../../accounts/membership/membership-records';
import type { LoginResult } from '../sessions/login-result';
import { LoginService } from '../sessions/login.service';
import { ProviderUnavailable, RelyingParty } from './relying-party';
import { checkedReturnTo } from './return-to';
import { clientRefOf } from './sso-callback.service';
import { connectionForDomain, connectionOf } from './sso-connections';
import { insertFlow, purgeOld, takeCode } from './sso-flows';

/** docs/contract.md: a flow (state, nonce, PKCE verifier) lives 10 minutes. */
export const SSO_FLOW_TTL_MS = 10 * 60 * 1000;
const KEEP_SPENT_MS = 24 * 60 * 60 * 1000;

const ticketInvalid = () =>
  new ApiError(
    ErrorCode.LoginTicketInvalid,
    HttpStatus.BAD_REQUEST,
    'The sso_code is unknown, used or expired, or was made for another browser than the one that started the sign-in.',
  );
const unavailable = (detail: string) =>
  new ApiError(ErrorCode.ServiceUnavailable, HttpStatus.SERVICE_UNAVAILABLE, detail);

/**
 * The SSO login's two ends: start (authorization URL, the flow kept for the browser that asked) and exchange
 * (that browser's one-time code → a session). The provider's answer in between: SsoCallbackService.
 */
@Injectable()
export class SsoLoginService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relyingParty: RelyingParty,
    private readonly box: SsoSecretBox,
    private readonly login: LoginService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /** `redirectUri` null: production without PUBLIC_URL, where no Host header may choose it. */
  async start(
    input: { company_id?: number; email?: string; return_to: string },
    redirectUri: string | null,
    browserHash: string,
  ): Promise<{ authorization_url: string }> {
    if ((input.company_id === undefined) === (input.email === undefined)) {
      throw ApiError.validation('Give either company_id or email.', [
        { field: 'company_id', message: 'give either company_id or email' },
      ]);
    }
    if (redirectUri === null) {
      // Only a connection that exists has a flow the missing setting stops; for any other the answer is the 404
      // every service gives (a 5xx for any company id would page the operator on every probe).
      await this.connectionFor(input);
      throw unavailable("Single sign-on cannot start: PUBLIC_URL (the service's external origin) is not set.");
    }
    const returnTo = checkedReturnTo(input.return_to, new URL(redirectUri).origin, this.config.corsOrigins);
    const connection = await this.connectionFor(input);
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    let url: string;
    try {
      url = await this.relyingParty.authorizationUrl(clientRefOf(this.box, connection), {
        redirectUri,
        state,
        nonce,
        codeVerifier,
      });
    } catch (error) {
      if (error instanceof ProviderUnavailable)
        throw unavailable(`The identity provider is unavailable: ${error.message}`);
      throw error;
    }
    const now = this.clock.now();
    await this.dataSource.transaction(async (tx) => {
      await purgeOld(tx, new Date(now.getTime() - KEEP_SPENT_MS));
      await insertFlow(
        tx,
        sha256Hex(state),
        { companyId: connection.companyId, nonce, codeVerifier, returnTo, redirectUri, browserHash },
        new Date(now.getTime() + SSO_FLOW_TTL_MS),
      );
    });
    return { authorization_url: url };
  }

  private async connectionFor(input: { company_id?: number; email?: string }) {
    const manager = this.dataSource.manager;
    const connection =
      input.company_id !== undefined
        ? await connectionOf(manager, input.company_id)
        : await connectionForDomain(manager, normalizeEmail(input.email!).split('@').pop()!);
    if (!connection) throw ApiError.notFound('No single sign-on connection for this company or e-mail.');
    return connection;
  }

  /**
   * The one-time code, from the browser it was made for → a session with method `sso` (no TOTP: the provider
   * authenticated the person). From any other browser: error_login_ticket_invalid, the code left as it was.
   */
  async exchange(ssoCode: string, browserHash: string, client: ClientInfo): Promise<LoginResult> {
    return this.login.recordingAddressRefusal(client, () => this.exchangeOnce(ssoCode, browserHash, client));
  }

  private exchangeOnce(ssoCode: string, browserHash: string, client: ClientInfo): Promise<LoginResult> {
    return this.dataSource.transaction(async (manager) => {
      const grant = await takeCode(manager, sha256Hex(ssoCode), browserHash, this.clock.now());
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
}
