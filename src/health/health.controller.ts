import { Controller, Get, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/auth.decorator';
import { NoRateLimit } from '../rate-limit/rate-limit.decorator';
import { RedisHealthIndicator } from './redis.health';

const CHECK_TIMEOUT_MS = 1000;

/**
 * For load balancers and orchestrators: 200 when the database (and Redis, when configured) answer, else 503.
 * The body is terminus's standard report, which probes and dashboards already understand.
 */
@ApiTags('health')
// Probes poll from one address; contract.md keeps health and metrics outside the request rate limit.
@NoRateLimit()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
  ) {}

  @Get()
  @Public()
  @HealthCheck()
  @ApiOperation({ summary: 'Readiness: database and, when configured, Redis' })
  async check(@Res({ passthrough: true }) reply: FastifyReply) {
    const checks = [() => this.database.pingCheck('database', { timeout: CHECK_TIMEOUT_MS })];
    if (this.redis.configured) checks.push(() => this.redis.pingCheck('redis', CHECK_TIMEOUT_MS));
    try {
      return await this.health.check(checks);
    } catch (error) {
      // Keep terminus's report on 503 too, rather than the API's error body: probes read `details`.
      if (!(error instanceof ServiceUnavailableException)) throw error;
      reply.status(503);
      return error.getResponse();
    }
  }
}
