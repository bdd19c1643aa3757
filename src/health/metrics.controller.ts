import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/auth.decorator';
import { CredentialService } from '../auth/credentials/credential.service';
import { NoRateLimit } from '../rate-limit/rate-limit.decorator';
import { QueryCounter } from '../database/query-counter';
import { RATE_LIMIT_STORAGE, type RateLimitStorage } from '../rate-limit/storage/rate-limit-storage';
import { ResilientRateLimitStorage } from '../rate-limit/storage/resilient-rate-limit.storage';

/** Prometheus text exposition of the few numbers an operator needs to watch. */
@ApiTags('health')
// Scrapers poll from one address; contract.md keeps health and metrics outside the request rate limit.
@NoRateLimit()
@Controller('metrics')
export class MetricsController {
  constructor(
    @Inject(RATE_LIMIT_STORAGE) private readonly counters: RateLimitStorage,
    private readonly credentials: CredentialService,
  ) {}

  @Get()
  @Public()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiOperation({ summary: 'Prometheus metrics' })
  @ApiOkResponse({ description: 'text/plain exposition format' })
  metrics(): string {
    const resilient = this.counters instanceof ResilientRateLimitStorage ? this.counters : undefined;
    return [
      '# HELP rate_limit_storage_fallbacks_total Rate-limit checks answered from memory because Redis failed.',
      '# TYPE rate_limit_storage_fallbacks_total counter',
      `rate_limit_storage_fallbacks_total ${resilient?.fallbackCount ?? 0}`,
      '# HELP rate_limit_storage_breaker_open 1 while the Redis circuit breaker is open.',
      '# TYPE rate_limit_storage_breaker_open gauge',
      `rate_limit_storage_breaker_open ${resilient && resilient.state !== 'closed' ? 1 : 0}`,
      '# HELP credential_cache_entries Credentials remembered by this instance.',
      '# TYPE credential_cache_entries gauge',
      `credential_cache_entries ${this.credentials.cachedCount}`,
      '# HELP db_queries_total Statements this instance sent to the database.',
      '# TYPE db_queries_total counter',
      `db_queries_total ${QueryCounter.total}`,
      '',
    ].join('\n');
  }
}
