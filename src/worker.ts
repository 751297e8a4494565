import { Logger } from '@nestjs/common';
import { AppConfig, ConfigError } from './config/app-config';
import { createWorkerContext } from './events/deliveries/worker-context';
import { Metrics } from './metrics/metrics';
import { serveMetrics } from './metrics/metrics-server';
import { onShutdownSignal } from './shutdown';
import { exitOnStartFailure } from './start-failure';

/**
 * `npm run worker`: a webhook worker alone (API.md §13), to scale deliveries out next to
 * API processes that run with WORKER=off. It needs DATABASE_URL: the embedded database
 * lives inside the API process, whose own in-process worker serves it.
 */
async function main(): Promise<void> {
  // A worker process that does not work has no use: WORKER is on here whatever it says.
  const config = AppConfig.fromEnvironment({ ...process.env, WORKER: 'on' });
  if (!config.databaseUrl) {
    throw new ConfigError(
      'DATABASE_URL: is required by `npm run worker` (without it, `npm start` runs the worker in-process on the embedded database)',
    );
  }
  const logger = new Logger('Worker');
  const context = await createWorkerContext(config, { url: config.databaseUrl, embedded: false });
  const metrics =
    config.workerMetricsPort === undefined
      ? undefined
      : await serveMetrics(context.get(Metrics), config.workerMetricsPort);
  logger.log(
    `webhook worker running${metrics ? `, metrics on :${metrics.port}/metrics` : ''}; SIGTERM or SIGINT stops it gracefully`,
  );

  // Attempts in flight finish (or are released for another worker), then the pool closes.
  onShutdownSignal(async () => {
    await metrics?.close();
    await context.close();
  });
}

main().catch(exitOnStartFailure);
