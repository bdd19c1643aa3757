import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Registry } from 'prom-client';
import { Public } from '../auth/auth.decorator';
import { CredentialService } from '../auth/credentials/credential.service';
import { QueryCounter } from '../database/query-counter';
import { NoRateLimit } from '../rate-limit/rate-limit.decorator';
import { RATE_LIMIT_STORAGE, type RateLimitStorage } from '../counters/rate-limit-storage';
import { ResilientRateLimitStorage } from '../counters/resilient-rate-limit.storage';
import { appMetrics, instanceRegistry } from './app-metrics';

/** Prometheus text exposition (prom-client): the default process metrics and the service's own series. */
@ApiTags('health')
// Scrapers poll from one address; contract.md keeps health and metrics outside the request rate limit.
@NoRateLimit()
@Controller('metrics')
export class MetricsController {
  private readonly instance: Registry;

  constructor(@Inject(RATE_LIMIT_STORAGE) counters: RateLimitStorage, credentials: CredentialService) {
    // Numbers these components keep anyway are read when scraped, never counted twice on the request path.
    const resilient = counters instanceof ResilientRateLimitStorage ? counters : undefined;
    this.instance = instanceRegistry({
      credentialCacheEntries: () => credentials.cachedCount,
      rateLimitFallbacks: () => resilient?.fallbackCount ?? 0,
      rateLimitBreakerOpen: () => resilient !== undefined && resilient.state !== 'closed',
      dbQueries: () => QueryCounter.total,
    });
  }

  @Get()
  @Public()
  @ApiOperation({ operationId: 'getMetrics', summary: 'Prometheus metrics' })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text exposition format 0.0.4', schema: { type: 'string' } })
  async metrics(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    reply.header('content-type', appMetrics.contentType);
    return `${await appMetrics.scrape()}\n${await this.instance.metrics()}`;
  }
}
