import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import type { RedisConnection } from '../../platform/redis-client/redis-connection';
import { REDIS_CLIENT, REDIS_FAILURES } from '../../platform/redis-client/redis-client.module';
import type { RedisFailureWatch } from '../../platform/redis-client/redis-failure';

@Injectable()
export class RedisHealthIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    @Inject(REDIS_CLIENT) private readonly redis: RedisConnection | null,
    @Inject(REDIS_FAILURES) private readonly failures: RedisFailureWatch | null,
  ) {}

  get configured(): boolean {
    return this.redis !== null;
  }

  async pingCheck(key: string, timeoutMs: number) {
    const indicator = this.health.check(key);
    if (!this.redis) return indicator.up({ message: 'not configured' });
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.redis.ping(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      return indicator.up();
    } catch (error) {
      // The connection's own failure (refused, timed out, certificate not trusted, credentials refused) says
      // what to fix; the command's error only says that it could not be sent.
      const failure = this.failures?.current;
      if (failure) return indicator.down({ message: failure.message, reason: failure.kind });
      return indicator.down({ message: (error as Error).message });
    } finally {
      clearTimeout(timer);
    }
  }
}
