import { Injectable } from '@nestjs/common';
import * as jose from 'jose';
import { DataSource } from 'typeorm';
import { ANONYMOUS } from '../../audit/recorder/audit-actor';
import { AuditRecorder } from '../../audit/recorder/audit-recorder.service';
import { Clock } from '../../platform/common/clock/clock';
import { ApiError } from '../../platform/common/errors/api-error';
import type { ClientInfo } from '../../platform/common/http/client-info';
import { RevocationBus } from '../../platform/revocation/revocation-bus';
import { endProviderSessions } from '../sessions/sso-sessions';
import { CLOCK_TOLERANCE_SECONDS, RelyingParty } from './relying-party';
import { connectionsOfClient } from './sso-connections';
import { rememberLogoutJti } from './sso-flows';

const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/**
 * A logout token older than this is refused (`iat` recent); within it, its `jti` is remembered, so a replayed
 * token is refused as well and ends no later session.
 */
const LOGOUT_TOKEN_MAX_AGE_SECONDS = 5 * 60;
const MAX_JTI_LENGTH = 255;

const invalid = (message: string) =>
  ApiError.validation(`The logout token is not valid: ${message}`, [{ field: 'logout_token', message }]);

/**
 * OpenID Connect Back-Channel Logout 1.0: the provider posts a logout token; the sessions its provider session
 * (`sid`) or its user (`sub`) opened here end, and every instance hears it on the revocation bus.
 */
@Injectable()
export class BackchannelLogoutService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relyingParty: RelyingParty,
    private readonly bus: RevocationBus,
    private readonly audit: AuditRecorder,
    private readonly clock: Clock,
  ) {}

  async logout(token: string, client: ClientInfo): Promise<number> {
    let claims: jose.JWTPayload;
    try {
      claims = jose.decodeJwt(token);
    } catch {
      throw invalid('not a JWT');
    }
    const audiences = typeof claims.aud === 'string' ? [claims.aud] : (claims.aud ?? []);
    if (typeof claims.iss !== 'string' || audiences.length === 0) throw invalid('iss and aud are required');
    const connections = (
      await Promise.all(audiences.map((aud) => connectionsOfClient(this.dataSource.manager, claims.iss!, aud)))
    ).flat();
    if (connections.length === 0) throw invalid('no connection of this issuer and client');
    const now = this.clock.now();
    let payload: jose.JWTPayload;
    try {
      payload = await this.relyingParty.verify(claims.iss, token, {
        audience: connections[0].clientId,
        currentDate: now,
        maxTokenAge: LOGOUT_TOKEN_MAX_AGE_SECONDS,
        requiredClaims: ['iat', 'jti', 'events'],
      });
    } catch (error) {
      throw invalid((error as Error).message);
    }
    const events = payload.events as Record<string, unknown> | undefined;
    if (typeof events !== 'object' || events === null || typeof events[BACKCHANNEL_EVENT] !== 'object') {
      throw invalid('events must hold the back-channel logout event');
    }
    if ('nonce' in payload) throw invalid('a logout token has no nonce');
    const sid = typeof payload.sid === 'string' ? payload.sid : undefined;
    const sub = typeof payload.sub === 'string' ? payload.sub : undefined;
    if (!sid && !sub) throw invalid('sid or sub is required');
    const jti = payload.jti;
    if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH) {
      throw invalid(`jti must be a string of 1 to ${MAX_JTI_LENGTH} characters`);
    }

    // Remembered until no clock could still take its `iat` for recent.
    const forgetAt = new Date((payload.iat! + LOGOUT_TOKEN_MAX_AGE_SECONDS + 2 * CLOCK_TOLERANCE_SECONDS) * 1000);
    const ended = await this.dataSource.transaction(async (manager) => {
      if (!(await rememberLogoutJti(manager, claims.iss!, jti, forgetAt, now))) {
        throw invalid('this logout token was already used (its jti was seen before)');
      }
      const sessions = await endProviderSessions(manager, { issuer: claims.iss!, sid, sub }, now);
      if (sessions.length > 0) {
        await this.audit.record(
          manager,
          sessions.map((session) => ({
            type: 'session.revoked' as const,
            companyId: session.companyId,
            actor: ANONYMOUS,
            subject: { kind: 'session' as const, id: session.id, email: session.email },
            sessionId: session.id,
            ip: client.ip,
            userAgent: client.userAgent,
            details: { reason: 'backchannel_logout', issuer: claims.iss },
          })),
        );
      }
      return sessions;
    });
    await Promise.all(ended.map((session) => this.bus.publish({ type: 'session', sessionId: session.id })));
    return ended.length;
  }
}
