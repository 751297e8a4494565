import { Logger } from '@nestjs/common';

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

export interface ShutdownOptions {
  /** how the process ends once `close` has settled; tests pass a stand-in */
  exit?: (code: number) => void;
}

/**
 * Graceful stop for `npm start` and `npm run worker`: on the first SIGTERM or SIGINT,
 * `close` drains the work in flight and releases what the process holds, then the
 * process exits (0, or 1 if closing failed). The handlers are removed at the first
 * signal, so a second one ends the process at once, as Node does by default.
 *
 * Returns a function that removes the handlers.
 */
export function onShutdownSignal(
  close: () => Promise<void>,
  { exit = (code) => process.exit(code) }: ShutdownOptions = {},
): () => void {
  const logger = new Logger('Shutdown');
  const remove = () => {
    for (const signal of SIGNALS) process.off(signal, shutdown);
  };
  function shutdown(signal: NodeJS.Signals) {
    remove();
    logger.log(`${signal}: shutting down`);
    close().then(
      () => exit(0),
      (error: unknown) => {
        logger.error('shutdown failed', error instanceof Error ? error.stack : String(error));
        exit(1);
      },
    );
  }
  for (const signal of SIGNALS) process.on(signal, shutdown);
  return remove;
}
