import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import type { RedisConnection } from '../redis-client/redis-connection';
import { REDIS_CLIENT } from '../redis-client/redis-client.module';

@Injectable()
export class RedisHealthIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    @Inject(REDIS_CLIENT) private readonly redis: RedisConnection | null,
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
      return indicator.down({ message: (error as Error).message });
    } finally {
      clearTimeout(timer);
    }
  }
}
