import { DynamicModule, INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppConfig } from '../../config/app-config';
import { ConfigModule } from '../../config/config.module';
import { DatabaseModule } from '../../database/database.module';
import type { DatabaseTarget } from '../../database/data-source-options';
import { appLogger } from '../../logging';
import { WebhookDeliveryModule } from './webhook-delivery.module';

/** A worker process holds the configuration, the database and the delivery machinery: no HTTP. */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig, database: DatabaseTarget): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(database),
        WebhookDeliveryModule,
      ],
    };
  }
}

/**
 * Boots a webhook worker without an HTTP server (`npm run worker`, src/worker.ts). Its
 * polling loop starts at boot when `config.worker` is on; `close()` stops it gracefully
 * (attempts in flight finish or are released) before the pool closes.
 */
export function createWorkerContext(
  config: AppConfig,
  database: DatabaseTarget,
): Promise<INestApplicationContext> {
  return NestFactory.createApplicationContext(WorkerModule.forRoot(config, database), {
    logger: appLogger(config),
    // a failure while it is built reaches the caller, which says what failed
    // (start-failure.ts); Nest would otherwise log it and exit at once
    abortOnError: false,
  });
}
