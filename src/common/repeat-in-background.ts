import type { Logger } from '@nestjs/common';

/**
 * Runs `run` every `everyMs` for upkeep no request waits on (purges, folds): a failure is
 * logged as a warning, `${what} failed`, and the next run tries again; the timer keeps no
 * process alive. Answers the function that stops it, for `onModuleDestroy`.
 */
export function repeatInBackground(
  everyMs: number,
  what: string,
  logger: Logger,
  run: () => Promise<unknown>,
): () => void {
  const timer = setInterval(() => {
    run().catch((error: unknown) => logger.warn({ err: error }, `${what} failed`));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
