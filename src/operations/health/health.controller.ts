import { Controller, Get, Res, ServiceUnavailableException } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
  type SchemaObject,
} from '@nestjs/swagger';
import { type HealthCheckResult, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { Public } from '../../access/rules/auth.decorator';
import { NoRateLimit } from '../../access/rules/rate-limit.decorator';
import { RedisHealthIndicator } from './redis.health';
import { HealthPriority } from '../../access/rules/load-priority.decorator';

const CHECK_TIMEOUT_MS = 1000;

/** `{"database": {"status": "up"}, ...}`: terminus's indicator map. */
const INDICATORS: SchemaObject = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    required: ['status'],
    properties: { status: { type: 'string', example: 'up' } },
    additionalProperties: true,
  },
};

/** The OpenAPI schema of {@link ReadinessReport}, for the contract test and clients. */
const READINESS_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['status'],
  properties: {
    status: { type: 'string', enum: ['ok', 'degraded', 'error'] },
    info: INDICATORS,
    error: INDICATORS,
    details: INDICATORS,
  },
  additionalProperties: false,
};

/** Readiness report: terminus's shape, with `degraded` when only an accelerator (Redis) is down. */
export type ReadinessReport = Omit<HealthCheckResult, 'status'> & { status: 'ok' | 'degraded' | 'error' };

/**
 * For load balancers and orchestrators (docs/contract.md, Operations). Liveness says the process serves; readiness
 * says whether it can do its work, which needs the database and not Redis: without Redis every operation
 * still works (counters and revocation notices fall back), so a Redis outage must not take every instance out
 * of service at once. It is reported as `degraded`, still 200.
 */
@ApiTags('health')
// Probes poll from one address; docs/contract.md keeps health and metrics outside the request rate limit.
@NoRateLimit()
@HealthPriority()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
  ) {}

  @Get('live')
  @Public()
  @ApiOperation({ operationId: 'checkLiveness', summary: 'Liveness: 200 while the process serves requests' })
  @ApiOkResponse({
    description: 'The process is serving',
    schema: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['ok'] } } },
  })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get()
  @Public()
  @ApiOperation({
    operationId: 'checkReadiness',
    summary: 'Readiness: 200 while the database answers (Redis down: "degraded"), else 503',
  })
  @ApiOkResponse({
    description: '`status` is `ok`, or `degraded` when Redis is configured and does not answer',
    schema: READINESS_SCHEMA,
  })
  @ApiServiceUnavailableResponse({
    description: 'The database does not answer: the readiness report with `status` `error`',
    schema: READINESS_SCHEMA,
  })
  async check(@Res({ passthrough: true }) reply: FastifyReply): Promise<ReadinessReport> {
    const [database, redis] = await Promise.all([
      this.health
        .check([() => this.database.pingCheck('database', { timeout: CHECK_TIMEOUT_MS })])
        .catch((error: unknown) => {
          // Keep terminus's report on 503 too, rather than the API's error body: probes read `details`.
          if (!(error instanceof ServiceUnavailableException)) throw error;
          return error.getResponse() as HealthCheckResult;
        }),
      this.redis.configured ? this.redis.pingCheck('redis', CHECK_TIMEOUT_MS) : undefined,
    ]);
    if (database.status !== 'ok') {
      reply.status(503);
      return { ...database, status: 'error' };
    }
    if (!redis) return { ...database, status: 'ok' };
    const redisUp = redis.redis?.status === 'up';
    return {
      status: redisUp ? 'ok' : 'degraded',
      info: { ...database.info, ...(redisUp ? redis : {}) },
      error: { ...database.error, ...(redisUp ? {} : redis) },
      details: { ...database.details, ...redis },
    };
  }
}
