import { timingSafeEqual } from 'node:crypto';
import { Controller, Get, Headers, HttpStatus, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiProduces, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../../access/rules/auth.decorator';
import { ApiError } from '../../platform/common/errors/api-error';
import { ErrorBodySchema } from '../../platform/common/errors/error-body.schema';
import { ErrorCode } from '../../platform/common/errors/error-codes';
import { AppConfig } from '../../platform/config/app-config';
import { NoRateLimit } from '../../access/rules/rate-limit.decorator';
import { AppMetrics } from '../../platform/common/metrics/app-metrics';
import { HealthPriority } from '../../access/rules/load-priority.decorator';

/** Prometheus text exposition (prom-client): the default process metrics and the service's own series. */
@ApiTags('health')
// Scrapers poll from one address; docs/contract.md keeps health and metrics outside the request rate limit.
@NoRateLimit()
@HealthPriority()
@Controller('metrics')
export class MetricsController {
  private readonly expectedAuthorization?: Buffer;

  constructor(
    private readonly appMetrics: AppMetrics,
    config: AppConfig,
  ) {
    this.expectedAuthorization = config.metricsToken ? Buffer.from(`Bearer ${config.metricsToken}`) : undefined;
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
    reply.header('content-type', this.appMetrics.contentType);
    return this.appMetrics.scrape();
  }

  /** With `METRICS_TOKEN` set, only the scraper that presents it may read (docs/contract.md "Operations"). */
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
