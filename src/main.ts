import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { createApp } from './app.factory';
import { AppConfig } from './config/app-config';
import { EmbeddedPostgres, startEmbeddedPostgres } from './database/embedded-postgres';
import { onShutdownSignal } from './shutdown';
import { exitOnStartFailure } from './start-failure';

async function main(): Promise<void> {
  const config = AppConfig.fromEnvironment();
  const logger = new Logger('Main');
  let embedded: EmbeddedPostgres | undefined;
  let url = config.databaseUrl;
  if (url === undefined) {
    embedded = await startEmbeddedPostgres(config.embeddedDbDir);
    url = embedded.url;
  }
  const app = await createApp(config, { url, embedded: embedded !== undefined });
  // logged once the app's logger is in place: JSON in production, like every other line
  if (embedded) {
    logger.log(
      `No DATABASE_URL: embedded database in ${config.embeddedDbDir} (development and demos only)`,
    );
  }

  // On SIGTERM/SIGINT: stop taking connections and let requests in flight finish
  // (DrainingFastifyAdapter), then the webhook worker, the pool, and last the embedded
  // database, so its files are left consistent.
  onShutdownSignal(async () => {
    await app.close();
    await embedded?.stop();
  });

  await app.listen({ port: config.port, host: '0.0.0.0' });
  // the port bound, which PORT=0 leaves to the system
  const { port } = app.getHttpServer().address() as AddressInfo;
  const scheme = config.tls ? 'https' : 'http';
  logger.log(`Commerce Operations API listening on ${scheme}://0.0.0.0:${port}`);
  logger.log(`API documentation: ${config.publicUrl ?? `${scheme}://localhost:${port}`}/docs`);
}

main().catch(exitOnStartFailure);
