import { Controller, Get, ServiceUnavailableException, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckResult,
  HealthCheckService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { Public } from '../auth/auth.decorators';
import type { Problem } from '../http/problems/problem';
import { serviceUnavailable } from '../http/problems/problem-mapping';
import { RedisHealthIndicator } from './redis.health';

/** Liveness and readiness for orchestrators and load balancers (API.md §12). */
@ApiTags('health')
@Public()
@Controller({ path: 'health', version: VERSION_NEUTRAL })
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
  ) {}

  /** The process is up; no dependency is checked. */
  @Get('live')
  @ApiOperation({ operationId: 'getLiveness', summary: 'Liveness' })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Ready to serve: the database answers (503 otherwise); Redis, when configured, is reported. */
  @Get('ready')
  @HealthCheck()
  @ApiOperation({ operationId: 'getReadiness', summary: 'Readiness' })
  async ready() {
    try {
      return await this.health.check([
        () => this.database.pingCheck('database', { timeout: 2000 }),
        () => this.redis.check('redis'),
      ]);
    } catch (error) {
      throw error instanceof ServiceUnavailableException ? notReady(error) : error;
    }
  }
}

/** The API's own 503 (problem-mapping.ts), naming what does not answer. */
function notReady(error: ServiceUnavailableException): Problem {
  const failing = Object.keys((error.getResponse() as Partial<HealthCheckResult>).error ?? {});
  return serviceUnavailable(`Not ready: ${failing.join(', ') || 'a dependency'} does not answer.`);
}
