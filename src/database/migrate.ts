import { AppConfig, ConfigError } from '../config/app-config';
import { applyMigrations } from './data-source-options';
import { exitOnStartFailure } from '../start-failure';

/**
 * `npm run migration:run`: applies pending migrations to DATABASE_URL and exits. The
 * one-shot step of a deployment that runs the API with MIGRATIONS_RUN=false.
 */
async function migrate(): Promise<void> {
  const config = AppConfig.fromEnvironment();
  if (!config.databaseUrl) {
    throw new ConfigError('DATABASE_URL: is required to run migrations');
  }
  const applied = await applyMigrations({ url: config.databaseUrl, embedded: false });
  console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'No pending migrations.');
}

migrate().catch(exitOnStartFailure);
