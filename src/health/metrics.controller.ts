import { timingSafeEqual } from 'node:crypto';
import { Controller, Get, Headers, HttpStatus, Inject, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiProduces, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Registry } from 'prom-client';
import { Public } from '../auth/auth.decorator';
import { ApiError } from '../common/errors/api-error';
import { ErrorBodySchema } from '../common/errors/error-body.schema';
import { ErrorCode } from '../common/errors/error-codes';
import { AppConfig } from '../config/app-config';
import { CredentialService } from '../auth/credentials/credential.service';
import { QueryCounter } from '../database/query-counter';
import { NoRateLimit } from '../rate-limit/rate-limit.decorator';
import { RATE_LIMIT_STORAGE, type RateLimitStorage } from '../counters/rate-limit-storage';
import { ResilientRateLimitStorage } from '../counters/resilient-rate-limit.storage';
import { appMetrics, instanceRegistry } from '../metrics/app-metrics';

/** Prometheus text exposition (prom-client): the default process metrics and the service's own series. */
@ApiTags('health')
// Scrapers poll from one address; contract.md keeps health and metrics outside the request rate limit.
@NoRateLimit()
@Controller('metrics')
export class MetricsController {
  private readonly instance: Registry;
  private readonly expectedAuthorization?: Buffer;

  constructor(
    @Inject(RATE_LIMIT_STORAGE) counters: RateLimitStorage,
    credentials: CredentialService,
    config: AppConfig,
  ) {
    this.expectedAuthorization = config.metricsToken ? Buffer.from(`Bearer ${config.metricsToken}`) : undefined;
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
  @ApiHeader({
    name: 'Authorization',
    required: false,
    description: 'When the service is configured with `METRICS_TOKEN`: `Bearer <METRICS_TOKEN>` (required then).',
  })
  @ApiUnauthorizedResponse({
    description:
      'Only when `METRICS_TOKEN` is set: error_jwt_is_required without an `Authorization` header, ' +
      'error_jwt_hash_not_found when it is not `Bearer <METRICS_TOKEN>`.',
    type: ErrorBodySchema,
  })
  async metrics(
    @Res({ passthrough: true }) reply: FastifyReply,
    @Headers('authorization') authorization?: string,
  ): Promise<string> {
    this.checkScraper(authorization);
    reply.header('content-type', appMetrics.contentType);
    return `${await appMetrics.scrape()}\n${await this.instance.metrics()}`;
  }

  /** With `METRICS_TOKEN` set, only the scraper that presents it may read (contract.md "Operations"). */
  private checkScraper(authorization: string | undefined): void {
    const expected = this.expectedAuthorization;
    if (!expected) return;
    if (authorization === undefined || authorization === '') {
      throw new ApiError(ErrorCode.JwtIsRequired, HttpStatus.UNAUTHORIZED, 'This endpoint needs the metrics token.');
    }
    const given = Buffer.from(authorization);
    // Constant time: the comparison must not tell a guesser how many leading characters were right.
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new ApiError(ErrorCode.JwtHashNotFound, HttpStatus.UNAUTHORIZED, 'The metrics token is not valid.');
    }
  }
}
