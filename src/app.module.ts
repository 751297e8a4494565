import { DynamicModule, Module } from '@nestjs/common';
import { ApiKeysModule } from './auth/api-keys/api-keys.module';
import { AuthModule } from './auth/auth.module';
import { OAuthClientsModule } from './auth/oauth-clients/oauth-clients.module';
import { UsersModule } from './auth/users/users.module';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import type { DatabaseTarget } from './database/data-source-options';
import { DocsModule } from './docs/docs.module';
import { EventsModule } from './events/events.module';
import { OutboxModule } from './events/outbox.module';
import { WebhookEndpointsModule } from './events/webhook-endpoints/webhook-endpoints.module';
import { HealthModule } from './health/health.module';
import { HttpModule } from './http/http.module';
import type { RouteTable } from './http/routing/route-table';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { InventoryModule } from './inventory/inventory.module';
import { InvoicesModule } from './invoices/invoices.module';
import { MetricsEndpointModule } from './metrics/metrics.module';
import { OrdersModule } from './orders/orders.module';
import { ProductsModule } from './products/products.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { RedisModule } from './redis/redis.module';
import { ShipmentsModule } from './shipments/shipments.module';

/** What the composition root hands in: settings, where the database is, the route index. */
export interface AppParts {
  config: AppConfig;
  database: DatabaseTarget;
  routes: RouteTable;
}

@Module({})
export class AppModule {
  static forRoot({ config, database, routes }: AppParts): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(database),
        RedisModule,
        // Global guards run in the order their modules are imported:
        AuthModule,
        // after AuthModule, so the rate limit is keyed by the principal
        RateLimitModule,
        // after RateLimitModule: the input rules are checked once the request is counted
        HttpModule.forRoot(routes),
        IdempotencyModule,
        OutboxModule,
        HealthModule,
        DocsModule,
        MetricsEndpointModule,
        ProductsModule,
        InventoryModule,
        OrdersModule,
        EventsModule,
        WebhookEndpointsModule,
        InvoicesModule,
        ShipmentsModule,
        ApiKeysModule,
        UsersModule,
        OAuthClientsModule,
      ],
    };
  }
}
