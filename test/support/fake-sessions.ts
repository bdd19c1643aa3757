import { DEFAULT_POLICY, type PolicyView } from '../../src/accounts/company-policy/company-policy-records';
import { JwtService } from '@nestjs/jwt';
import type { EntityManager } from 'typeorm';
import type { AuditEventInput } from '../../src/audit/recorder/audit-event';
import type { AuditRecorder } from '../../src/audit/recorder/audit-recorder.service';
import { JwtKeyRing } from '../../src/platform/keys/jwt-key-ring';
import type { Principal } from '../../src/access/rules/principal';
import type { Member } from '../../src/accounts/membership/membership-records';
import type { RevocationBus, RevocationNotice } from '../../src/platform/revocation/revocation-bus';
import type { IssuedToken, TokenRevokeReason } from '../../src/identity/sessions/issued-token.entity';
import type { LoginSession, SessionEndReason } from '../../src/identity/sessions/login-session.entity';
import { type EndedSession, SessionStore } from '../../src/identity/sessions/session-store';
import { TokenIssuer } from '../../src/identity/sessions/token-issuer.service';

/**
 * In-memory fakes of the session services' ports, for their unit specs only (the end-to-end suites run the real
 * store on real databases). A transaction works on the live maps and puts them back when its work throws, as a
 * rollback would; `inTransaction` lets a spec check that notices go out only after the commit.
 */
export class FakeSessionStore extends SessionStore {
  sessions = new Map<string, LoginSession>();
  tokens = new Map<string, IssuedToken>();
  /** `${employeeId}:${companyId}` → the member, with the names a login result shows. */
  members = new Map<string, Member>();
  companies = new Map<number, string>();
  emails = new Map<number, string>();
  inTransaction = false;

  addMember(employee: { id: number; email: string; name: string }, company: { id: number; name: string }): void {
    this.members.set(`${employee.id}:${company.id}`, { employee, company });
    this.companies.set(company.id, company.name);
    this.emails.set(employee.id, employee.email);
  }

  async transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const sessions = new Map([...this.sessions].map(([id, row]) => [id, { ...row }]));
    const tokens = new Map([...this.tokens].map(([id, row]) => [id, { ...row }]));
    this.inTransaction = true;
    try {
      return await work({} as EntityManager);
    } catch (error) {
      this.sessions = sessions;
      this.tokens = tokens;
      throw error;
    } finally {
      this.inTransaction = false;
    }
  }

  async tokenByRefreshHash(refreshHash: string): Promise<IssuedToken | null> {
    return [...this.tokens.values()].find((token) => token.refreshHash === refreshHash) ?? null;
  }

  async session(id: string): Promise<LoginSession | null> {
    return this.sessions.get(id) ?? null;
  }

  async ownSession(id: string, employeeId: number): Promise<LoginSession | null> {
    const session = this.sessions.get(id);
    return session?.employeeId === employeeId ? session : null;
  }

  async liveSessionsSince(employeeId: number, since: Date): Promise<LoginSession[]> {
    return [...this.sessions.values()]
      .filter((s) => s.employeeId === employeeId && !s.endedAt && s.createdAt > since)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  }

  async spendRefresh(_manager: EntityManager, tokenId: string, now: Date): Promise<boolean> {
    const token = this.tokens.get(tokenId);
    if (!token || token.refreshUsedAt || token.revokedAt) return false;
    Object.assign(token, { refreshUsedAt: now, revokedAt: now, revokeReason: 'refresh' });
    return true;
  }

  async endSession(
    _manager: EntityManager,
    sessionId: string,
    now: Date,
    reason: SessionEndReason,
  ): Promise<EndedSession | null> {
    const session = this.sessions.get(sessionId);
    if (!session || session.endedAt) return null;
    Object.assign(session, { endedAt: now, endReason: reason });
    const email = this.emails.get(session.employeeId) ?? '';
    return { id: sessionId, companyId: session.companyId, employeeId: session.employeeId, email };
  }

  async lockLiveSession(_manager: EntityManager, sessionId: string): Promise<LoginSession | null> {
    const session = this.sessions.get(sessionId);
    return session && !session.endedAt ? session : null;
  }

  async moveSession(_manager: EntityManager, sessionId: string, companyId: number, now: Date): Promise<void> {
    Object.assign(this.sessions.get(sessionId)!, { companyId, lastUsedAt: now });
  }

  async insertSession(_manager: EntityManager, session: LoginSession): Promise<void> {
    this.sessions.set(session.id, { ...session });
  }

  async member(_manager: EntityManager, employeeId: number, companyId: number): Promise<Member | null> {
    return this.members.get(`${employeeId}:${companyId}`) ?? null;
  }

  async policy(): Promise<PolicyView> {
    return { ...DEFAULT_POLICY, ip_allowlist: [] };
  }

  async company(_manager: EntityManager, companyId: number): Promise<{ id: number; name: string }> {
    const name = this.companies.get(companyId);
    if (name === undefined) throw new Error(`company ${companyId} not found`);
    return { id: companyId, name };
  }

  async insertToken(_manager: EntityManager, token: IssuedToken): Promise<void> {
    this.tokens.set(token.id, { ...token });
  }

  async revokeTokens(
    _manager: EntityManager,
    where: { id: string } | { sessionId: string },
    reason: TokenRevokeReason,
    now: Date,
  ): Promise<number> {
    const matching = [...this.tokens.values()].filter(
      (t) => !t.revokedAt && ('id' in where ? t.id === where.id : t.sessionId === where.sessionId),
    );
    for (const token of matching) Object.assign(token, { revokedAt: now, revokeReason: reason });
    return matching.length;
  }

  tokensOf(sessionId: string): IssuedToken[] {
    return [...this.tokens.values()].filter((token) => token.sessionId === sessionId);
  }
}

/** Events recorded, each with whether it was written inside the store's transaction. */
export class FakeAudit {
  readonly events: Array<AuditEventInput & { inTransaction: boolean }> = [];
  readonly accountEvents: Array<{ account: unknown; type: string }> = [];

  constructor(private readonly store: FakeSessionStore) {}

  async record(_manager: unknown, input: AuditEventInput | AuditEventInput[]): Promise<void> {
    for (const event of [input].flat()) this.events.push({ ...event, inTransaction: this.store.inTransaction });
  }

  async recordForAccount(_manager: unknown, account: unknown, input: { type: string }): Promise<number> {
    this.accountEvents.push({ account, type: input.type });
    return 1;
  }

  types(): string[] {
    return this.events.map((event) => event.type);
  }

  asRecorder(): AuditRecorder {
    return this as unknown as AuditRecorder;
  }
}

/** Notices published, each with whether the store's transaction was still open (it must not be). */
export class FakeBus {
  readonly published: Array<RevocationNotice & { inTransaction: boolean }> = [];

  constructor(private readonly store: FakeSessionStore) {}

  async publish(notice: RevocationNotice): Promise<void> {
    this.published.push({ ...notice, inTransaction: this.store.inTransaction });
  }

  asBus(): RevocationBus {
    return this as unknown as RevocationBus;
  }
}

export const SECRET = 'unit-test-secret-of-at-least-32-bytes!!';

/** The real issuer (signing, lifetime) over the fake store. */
export function fakeIssuer(store: FakeSessionStore): { issuer: TokenIssuer; jwt: JwtService } {
  const jwt = new JwtService({});
  return { issuer: new TokenIssuer(jwt, new JwtKeyRing({ secrets: [SECRET] }), store), jwt };
}

/** The principal of a session's current token, as the guard would hand it to a route. */
export function principalOf(store: FakeSessionStore, sessionId: string): Principal {
  const session = store.sessions.get(sessionId)!;
  const token = store.tokensOf(sessionId).find((t) => !t.revokedAt)!;
  const member = store.members.get(`${session.employeeId}:${session.companyId}`)!;
  return {
    kind: 'jwt',
    employeeId: session.employeeId,
    companyId: session.companyId,
    permissions: ['*'],
    roles: [],
    sessionId,
    credentialId: token.id,
    employee: member.employee,
    company: member.company,
    mfa: { totp: false, passkeys: 0 },
  };
}
