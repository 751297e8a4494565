import { Logger } from '@nestjs/common';
import { createApp } from './app.factory';
import { AppConfig, ConfigError } from './config/app-config';
import { startEmbeddedPostgres } from './database/embedded-postgres';

async function main(): Promise<void> {
  const config = AppConfig.fromEnvironment();
  const logger = new Logger('Main');
  let stopEmbedded: (() => Promise<void>) | undefined;
  let url = config.databaseUrl;
  if (!url) {
    const embedded = await startEmbeddedPostgres(config.embeddedDbDir);
    url = embedded.url;
    stopEmbedded = () => embedded.stop();
    logger.log(
      `No DATABASE_URL: using the embedded database in ${config.embeddedDbDir} (development only)`,
    );
  }
  const app = await createApp(config, { url, embedded: stopEmbedded !== undefined });
  if (stopEmbedded) {
    const stop = stopEmbedded;
    process.once('beforeExit', () => void stop());
  }
  await app.listen({ port: config.port, host: '0.0.0.0' });
  const scheme = config.tls ? 'https' : 'http';
  const origin = config.publicUrl ?? `${scheme}://localhost:${config.port}`;
  logger.log(`Commerce Operations API listening on ${scheme}://0.0.0.0:${config.port}`);
  logger.log(`API documentation: ${origin}/docs`);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
  } else {
    console.error(error);
  }
  process.exit(1);
});
