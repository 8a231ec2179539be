import type { Logger } from './logger';

/**
 * The one way a service process ends: on SIGINT or SIGTERM, run `stop` (servers drain, buses disconnect),
 * then flush telemetry, then exit 0 (1 if stopping failed). A second signal during shutdown is ignored.
 */
export function exitOnSignals(logger: Logger, stop: () => Promise<void>, shutdownTelemetry: () => Promise<void>): void {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'shutting down');
      stop()
        .then(() => shutdownTelemetry())
        .then(
          () => process.exit(0),
          (error: unknown) => {
            logger.error({ err: error }, 'unclean shutdown');
            process.exit(1);
          },
        );
    });
  }
}
