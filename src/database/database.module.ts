import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig, ConfigError } from '../config/app-config';
import { CursorCodec } from '../http/pagination/cursor-codec';
import { applyMigrations, dataSourceOptions, DatabaseTarget } from './data-source-options';
import { RowCounts } from './row-counts';

/**
 * The data source, plus the database-held secrets other modules need at boot, and the
 * upkeep of the counts whole lists read (RowCounts).
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(target: DatabaseTarget): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [AppConfig],
          useFactory: async (config: AppConfig) => {
            // Migrations have no query time limit, so they run on a data source of their
            // own first. Not on the embedded database: PGlite serves one connection at a
            // time, and a second data source opened right after the first closes races
            // that close ("Connection terminated unexpectedly"); its migrations are quick.
            if (config.migrationsRun && !target.embedded) await applyMigrations(target);
            return {
              ...dataSourceOptions(target, {
                poolSize: config.databasePoolSize,
                queryTimeoutMs: config.databaseQueryTimeoutMs,
                preparedStatements: config.databasePreparedStatements,
              }),
              migrationsRun: config.migrationsRun && target.embedded,
              autoLoadEntities: true,
              retryAttempts: 3,
              retryDelay: 1000,
            };
          },
        }),
      ],
      providers: [
        RowCounts,
        {
          provide: CursorCodec,
          inject: [DataSource, AppConfig],
          useFactory: async (dataSource: DataSource, config: AppConfig) => {
            // The first read of the schema: with MIGRATIONS_RUN=false and migrations this
            // build needs still pending, it would fail on some missing table, saying nothing
            // of why. This process's own migrations only: a newer build's are not its concern.
            // (On an empty database TypeORM creates its empty `migrations` table for this, as
            // `npm run migration:run` would first.)
            if (!config.migrationsRun && (await dataSource.showMigrations())) {
              throw new ConfigError(
                'MIGRATIONS_RUN: is false, and this build has migrations the database lacks: run `npm run migration:run` (or start once without MIGRATIONS_RUN=false) first',
              );
            }
            const rows: { value: string }[] = await dataSource.query(
              `SELECT value FROM app_secrets WHERE name = 'cursor'`,
            );
            if (!rows[0]) {
              throw new Error('app_secrets has no cursor secret: are migrations applied?');
            }
            return new CursorCodec(Buffer.from(rows[0].value, 'utf8'));
          },
        },
      ],
      exports: [CursorCodec],
    };
  }
}
