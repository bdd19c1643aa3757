import { Inject, Injectable } from '@nestjs/common';
import { APP_LOGGER } from '../../../platform/common/logging/logging.module';
import type { AppLogger } from '../../../platform/common/logging/logger';
import { CredentialStrategies } from './credential-strategies';
import type { Principal } from '../../../access/rules/principal';

/** `last_used_at` is for people reading a session list; minute precision is plenty. */
const WRITE_INTERVAL_MS = 60_000;
const MAX_TRACKED = 100_000;

/**
 * Keeps `last_used_at` of sessions and API keys roughly current without a database write per request: at most
 * one write per credential per minute, off the request's path. The write is the credential's strategy's, whose
 * folder owns the table.
 */
@Injectable()
export class UsageRecorder {
  private readonly lastWritten = new Map<string, number>();

  constructor(
    private readonly strategies: CredentialStrategies,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  touch(principal: Principal, nowMs: number): void {
    const id = principal.sessionId ?? principal.credentialId;
    const last = this.lastWritten.get(id);
    if (last !== undefined && nowMs - last < WRITE_INTERVAL_MS) return;
    if (this.lastWritten.size >= MAX_TRACKED) this.lastWritten.clear();
    this.lastWritten.set(id, nowMs);
    this.strategies
      .ofKind(principal.kind)
      ?.recordUse(id, new Date(nowMs))
      // A best-effort note for people reading the session list: while the database is away it fails for every
      // credential in use, and the outage is logged once elsewhere. One line without a stack, at debug.
      .catch((error: unknown) =>
        this.logger.debug(
          { credential: principal.kind, reason: error instanceof Error ? error.message.split('\n')[0] : String(error) },
          'could not record last use',
        ),
      );
  }
}
