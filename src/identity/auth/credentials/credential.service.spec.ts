import type { FastifyRequest } from 'fastify';
import { ManualClock } from '../../../../test/support/manual-clock';
import type { CredentialStrategy, LookUpResult } from './credential-strategy';
import { STALE_IF_ERROR_MS } from './credential-cache';
import { AppMetrics } from '../../../platform/common/metrics/app-metrics';
import { CredentialService } from './credential.service';
import { CredentialStrategies } from './credential-strategies';
import { JWT_PRINCIPAL } from '../../../../test/support/principals';
import type { RevocationBus, RevocationNotice } from '../../../platform/revocation/revocation-bus';
import type { UsageRecorder } from './usage-recorder';

const principal = JWT_PRINCIPAL;

/** A strategy whose look-ups answer from a script: the database answering, or refusing. */
class ScriptedStrategy implements CredentialStrategy {
  databaseDown = false;
  lookUps = 0;
  constructor(private readonly clock: ManualClock) {}
  accepts(): boolean {
    return true;
  }
  async recordUse(): Promise<void> {}
  vouchesFor(): boolean {
    return true;
  }
  async lookUp(): Promise<LookUpResult> {
    this.lookUps++;
    if (this.databaseDown)
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    return { status: 'valid', principal, issuedAtMs: this.clock.nowMs(), expiresAtMs: this.clock.nowMs() + 3_600_000 };
  }
}

describe('CredentialService while the database is down', () => {
  const clock = new ManualClock('2026-11-24T12:00:00Z');
  let strategy: ScriptedStrategy;
  let service: CredentialService;
  let notify: (notice: RevocationNotice) => void;
  const request = (header = 'a.jwt.value') =>
    ({ headers: { authorization: header }, query: {} }) as unknown as FastifyRequest;

  beforeEach(() => {
    strategy = new ScriptedStrategy(clock);
    const bus = {
      onNotice: (listener: (notice: RevocationNotice) => void) => (notify = listener),
    } as unknown as RevocationBus;
    const usage = { touch: () => undefined } as unknown as UsageRecorder;
    service = new CredentialService(CredentialStrategies.of({ jwt: strategy }), clock, usage, bus, new AppMetrics());
  });

  it('keeps answering a credential verified before, past its freshness, while look-ups fail', async () => {
    expect((await service.resolve(request())).status).toBe('valid');
    strategy.databaseDown = true;
    clock.advance(5 * 60_000);
    expect((await service.resolve(request())).status).toBe('valid');
    expect(strategy.lookUps).toBe(2);
  });

  it('asks the database again once it answers, and stops trusting the old verdict after the grace period', async () => {
    await service.resolve(request());
    strategy.databaseDown = true;
    clock.advance(STALE_IF_ERROR_MS + 60_000);
    await expect(service.resolve(request())).rejects.toThrow(/ECONNREFUSED/);
  });

  it('never answers a revoked credential from memory: the notice evicts the stale entry too', async () => {
    await service.resolve(request());
    clock.advance(60_000);
    notify({ type: 'session', sessionId: 'session-1' });
    strategy.databaseDown = true;
    await expect(service.resolve(request())).rejects.toThrow(/ECONNREFUSED/);
  });

  it('looks every credential up again after notices may have been missed (resync), yet answers stale in an outage', async () => {
    await service.resolve(request());
    expect((await service.resolve(request())).status).toBe('valid');
    expect(strategy.lookUps).toBe(1);
    notify({ type: 'resync' });
    expect((await service.resolve(request())).status).toBe('valid');
    expect(strategy.lookUps).toBe(2);
    notify({ type: 'resync' });
    strategy.databaseDown = true;
    expect((await service.resolve(request())).status).toBe('valid');
    expect(strategy.lookUps).toBe(3);
    // Never trusted longer than without the resync: the stale window still ends where it ended.
    clock.advance(STALE_IF_ERROR_MS + 30_000);
    await expect(service.resolve(request())).rejects.toThrow(/ECONNREFUSED/);
  });

  it('answers an unseen credential with the failure (503 upstream), not a guess', async () => {
    strategy.databaseDown = true;
    await expect(service.resolve(request('never.seen.before'))).rejects.toThrow(/ECONNREFUSED/);
  });
});
