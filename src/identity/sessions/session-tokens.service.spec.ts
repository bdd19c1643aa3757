import { ManualClock } from '../../../test/support/manual-clock';
import { FakeAudit, FakeBus, FakeSessionStore, fakeIssuer, principalOf } from '../../../test/support/fake-sessions';
import { SessionTokens } from './session-tokens.service';
import type { TokenIssuer } from './token-issuer.service';

const ann = { id: 7, email: 'ann@acme.io', name: 'Ann' };
const acme = { id: 3, name: 'Acme' };
const beta = { id: 4, name: 'Beta' };
const client = { ip: '203.0.113.9', userAgent: 'spec' };
const DAY = 24 * 60 * 60 * 1000;
const SESSION = '5f0c6a8e-2b1d-4c3e-9f00-000000000001';

describe('the working-company switch (SessionTokens, ports faked, clock injected)', () => {
  let clock: ManualClock;
  let store: FakeSessionStore;
  let audit: FakeAudit;
  let bus: FakeBus;
  let issuer: TokenIssuer;
  let tokens: SessionTokens;

  beforeEach(async () => {
    clock = new ManualClock('2026-11-01T03:00:00Z');
    store = new FakeSessionStore();
    store.addMember(ann, acme);
    store.addMember(ann, beta);
    audit = new FakeAudit(store);
    bus = new FakeBus(store);
    issuer = fakeIssuer(store).issuer;
    tokens = new SessionTokens(store, issuer, bus.asBus(), clock, audit.asRecorder());
    const now = clock.now();
    const session = {
      id: SESSION,
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
    await issuer.issue({} as never, session, acme.id, now);
  });

  it('keeps the session and its login time, blacklists the old token, issues one for the new company', async () => {
    const principal = principalOf(store, SESSION);
    clock.advance(60_000);

    const result = await tokens.switchCompany(principal, beta.id, client);

    expect(result).toMatchObject({ session_id: SESSION, company: beta, employee: ann });
    expect(store.sessions.get(SESSION)).toMatchObject({ companyId: beta.id, lastUsedAt: clock.now() });
    expect(store.sessions.get(SESSION)!.createdAt.toISOString()).toBe('2026-11-01T03:00:00.000Z');
    expect(store.tokens.get(principal.credentialId)!.revokeReason).toBe('company_switch');
    const live = store.tokensOf(SESSION).filter((t) => !t.revokedAt);
    expect(live).toEqual([expect.objectContaining({ companyId: beta.id })]);
    expect(audit.events.map((e) => [e.type, e.companyId])).toEqual([
      ['company.switched', acme.id],
      ['company.switched', beta.id],
    ]);
    expect(bus.published).toEqual([{ type: 'token', tokenId: principal.credentialId, inTransaction: false }]);
  });

  it('gives the new token at most what is left of the 30 days since login (switch on day 20)', async () => {
    const principal = principalOf(store, SESSION);
    clock.advance(20 * DAY);
    const result = await tokens.switchCompany(principal, beta.id, client);
    expect(result.expires_at).toBe('2026-12-01T10:00:00+07:00');
  });

  it('refuses a company the account does not belong to with 403, changing nothing', async () => {
    const principal = principalOf(store, SESSION);
    await expect(tokens.switchCompany(principal, 99, client)).rejects.toMatchObject({
      code: 'error_company_not_member',
    });
    expect(store.tokens.get(principal.credentialId)!.revokedAt).toBeNull();
    expect(store.sessions.get(SESSION)!.companyId).toBe(acme.id);
    expect(bus.published).toEqual([]);
  });

  it('refuses a token already replaced by an earlier switch, and the whole switch rolls back', async () => {
    const principal = principalOf(store, SESSION);
    await tokens.switchCompany(principal, beta.id, client);
    const tokenCount = store.tokens.size;

    await expect(tokens.switchCompany(principal, acme.id, client)).rejects.toMatchObject({
      code: 'error_jwt_blacklisted',
    });
    expect(store.tokens.size).toBe(tokenCount);
    expect(store.sessions.get(SESSION)!.companyId).toBe(beta.id);
  });

  it('refuses to switch an ended session', async () => {
    const principal = principalOf(store, SESSION);
    store.sessions.get(SESSION)!.endedAt = clock.now();
    await expect(tokens.switchCompany(principal, beta.id, client)).rejects.toMatchObject({
      code: 'error_jwt_blacklisted',
    });
  });
});
