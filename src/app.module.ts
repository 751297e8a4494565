import { DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from './auth/auth.module';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import type { DatabaseTarget } from './database/data-source-options';
import { DocsModule } from './docs/docs.module';
import { HealthModule } from './health/health.module';
import { HttpModule } from './http/http.module';
import type { RouteTable } from './http/route-table';
import { InventoryModule } from './inventory/inventory.module';
import { ProductsModule } from './products/products.module';

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
        HttpModule.forRoot(routes),
        AuthModule,
        HealthModule,
        DocsModule,
        ProductsModule,
        InventoryModule,
      ],
    };
  }
}
