import { ManualClock } from '../../../test/support/manual-clock';
import { FakeAudit, FakeBus, FakeSessionStore, fakeIssuer, principalOf } from '../../../test/support/fake-sessions';
import { SessionService, REFRESH_REUSE_GRACE_MS } from './session.service';
import { SessionTokens } from './session-tokens.service';
import type { TokenIssuer } from './token-issuer.service';

const ann = { id: 7, email: 'ann@acme.io', name: 'Ann' };
const acme = { id: 3, name: 'Acme' };
const client = { ip: '203.0.113.9', userAgent: 'spec' };
const DAY = 24 * 60 * 60 * 1000;

describe('SessionService (ports faked, clock injected)', () => {
  let clock: ManualClock;
  let store: FakeSessionStore;
  let audit: FakeAudit;
  let bus: FakeBus;
  let issuer: TokenIssuer;
  let service: SessionService;

  /** A login at the clock's time: the session and its first token, as LoginService leaves them. */
  async function login(): Promise<{ sessionId: string; refreshToken: string }> {
    const now = clock.now();
    const session = {
      id: `5f0c6a8e-2b1d-4c3e-9f00-${String(store.sessions.size).padStart(12, '0')}`,
      employeeId: ann.id,
      companyId: acme.id,
      createdAt: now,
      lastUsedAt: now,
      method: 'password' as const,
      provenAt: now,
      ip: null,
      userAgent: null,
      endedAt: null,
      endReason: null,
    };
    await store.insertSession({} as never, session);
    const pair = await issuer.issue({} as never, session, acme.id, now);
    return { sessionId: session.id, refreshToken: pair.refreshToken };
  }

  beforeEach(() => {
    clock = new ManualClock('2026-11-01T03:00:00Z');
    store = new FakeSessionStore();
    store.addMember(ann, acme);
    audit = new FakeAudit(store);
    bus = new FakeBus(store);
    issuer = fakeIssuer(store).issuer;
    const tokens = new SessionTokens(store, issuer, bus.asBus(), clock, audit.asRecorder());
    service = new SessionService(store, issuer, tokens, bus.asBus(), clock, audit.asRecorder());
  });

  describe('refresh rotation', () => {
    it('spends the refresh token, blacklists its JWT and issues a new pair for the same session', async () => {
      const { sessionId, refreshToken } = await login();
      const [old] = store.tokensOf(sessionId);
      clock.advance(60_000);

      const renewed = await service.refresh(refreshToken, client);

      expect(renewed.session_id).toBe(sessionId);
      expect(renewed.refresh_token).not.toBe(refreshToken);
      expect(store.tokens.get(old.id)).toMatchObject({ revokeReason: 'refresh', refreshUsedAt: clock.now() });
      expect(store.tokensOf(sessionId).filter((t) => !t.revokedAt)).toHaveLength(1);
      expect(audit.types()).toEqual(['token.refreshed']);
      expect(bus.published).toEqual([{ type: 'token', tokenId: old.id, inTransaction: false }]);
    });

    it('never lets a refreshed token outlive the login by more than 30 days (day 25: 5 days left)', async () => {
      const { refreshToken } = await login();
      clock.advance(13 * DAY);
      const onDay13 = await service.refresh(refreshToken, client);
      clock.advance(12 * DAY);
      const renewed = await service.refresh(onDay13.refresh_token, client);
      // Login 2026-11-01T03:00Z + 30 days, in Vietnam time.
      expect(renewed.expires_at).toBe('2026-12-01T10:00:00+07:00');
    });

    it('refuses a refresh more than 30 days after login with error_session_max_age, before expiry', async () => {
      const { sessionId, refreshToken } = await login();
      clock.advance(30 * DAY + 1000);
      await expect(service.refresh(refreshToken, client)).rejects.toMatchObject({ code: 'error_session_max_age' });
      expect(store.tokensOf(sessionId).every((t) => t.refreshUsedAt === null)).toBe(true);
    });

    it('refuses the refresh token of an expired JWT with error_jwt_expired (day 15 of a 14-day token)', async () => {
      const { refreshToken } = await login();
      clock.advance(15 * DAY);
      await expect(service.refresh(refreshToken, client)).rejects.toMatchObject({ code: 'error_jwt_expired' });
    });

    it('refuses an unknown refresh token with 401 error_refresh_token_invalid', async () => {
      await login();
      await expect(service.refresh('never-issued', client)).rejects.toMatchObject({
        code: 'error_refresh_token_invalid',
      });
    });

    it('refuses the refresh token of an ended session as blacklisted', async () => {
      const { sessionId, refreshToken } = await login();
      await service.logout(principalOf(store, sessionId), client);
      await expect(service.refresh(refreshToken, client)).rejects.toMatchObject({ code: 'error_jwt_blacklisted' });
    });

    it('spends nothing when the account left the company meanwhile (the whole rotation rolls back)', async () => {
      const { sessionId, refreshToken } = await login();
      store.members.clear();
      await expect(service.refresh(refreshToken, client)).rejects.toMatchObject({ code: 'error_jwt_blacklisted' });
      expect(store.tokensOf(sessionId)).toEqual([expect.objectContaining({ refreshUsedAt: null, revokedAt: null })]);
      expect(bus.published).toEqual([]);
    });
  });

  describe('refresh reuse', () => {
    it('within 10 s of its use, a spent refresh token is only refused (a client retrying)', async () => {
      const { sessionId, refreshToken } = await login();
      await service.refresh(refreshToken, client);
      clock.advance(REFRESH_REUSE_GRACE_MS);
      await expect(service.refresh(refreshToken, client)).rejects.toMatchObject({
        code: 'error_refresh_token_invalid',
      });
      expect(store.sessions.get(sessionId)!.endedAt).toBeNull();
    });

    it('after 10 s it is taken as stolen: the session ends, every token is blacklisted, instances are told', async () => {
      const { sessionId, refreshToken } = await login();
      await service.refresh(refreshToken, client);
      clock.advance(REFRESH_REUSE_GRACE_MS + 1);

      await expect(service.refresh(refreshToken, client)).rejects.toMatchObject({
        code: 'error_refresh_token_invalid',
      });

      expect(store.sessions.get(sessionId)).toMatchObject({ endedAt: clock.now(), endReason: 'refresh_reuse' });
      expect(store.tokensOf(sessionId).every((t) => t.revokedAt !== null)).toBe(true);
      expect(audit.events.at(-1)).toMatchObject({ type: 'session.refresh_reuse', sessionId, inTransaction: true });
      expect(bus.published.at(-1)).toEqual({ type: 'session', sessionId, inTransaction: false });
    });
  });

  describe('ending sessions', () => {
    it('logout ends the session and blacklists its tokens; ending it again records nothing more', async () => {
      const { sessionId } = await login();
      const principal = principalOf(store, sessionId);
      clock.advance(5_000);

      await service.logout(principal, client);
      await service.logout(principal, client);

      expect(store.sessions.get(sessionId)).toMatchObject({ endedAt: clock.now(), endReason: 'logout' });
      expect(store.tokensOf(sessionId)).toEqual([expect.objectContaining({ revokeReason: 'session_revoked' })]);
      expect(audit.types()).toEqual(['session.logged_out']);
      expect(bus.published.every((notice) => !notice.inTransaction)).toBe(true);
    });

    it("ends one of the caller's own sessions, and answers 404 for another employee's", async () => {
      const first = await login();
      const second = await login();
      const principal = principalOf(store, first.sessionId);

      await service.revokeOwn(principal, second.sessionId, client);
      expect(store.sessions.get(second.sessionId)!.endReason).toBe('revoked');

      const stranger = { ...principal, employeeId: 8 };
      await expect(service.revokeOwn(stranger, first.sessionId, client)).rejects.toMatchObject({
        code: 'error_not_found',
      });
      expect(store.sessions.get(first.sessionId)!.endedAt).toBeNull();
    });

    it('lists live sessions younger than 30 days, newest first, marking the caller’s own', async () => {
      const old = await login();
      clock.advance(DAY);
      const recent = await login();
      clock.advance(29 * DAY + 1000);
      const list = await service.list(principalOf(store, recent.sessionId));
      expect(list.map((s) => [s.id, s.current])).toEqual([[recent.sessionId, true]]);
      expect(list.map((s) => s.id)).not.toContain(old.sessionId);
    });
  });
});
