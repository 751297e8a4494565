import { Controller, Get, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public } from '../auth/auth.decorators';
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
  ready() {
    return this.health.check([
      () => this.database.pingCheck('database', { timeout: 2000 }),
      () => this.redis.check('redis'),
    ]);
  }
}
