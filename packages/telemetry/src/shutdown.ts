import type { Logger } from './logger';

/**
 * The one way a service process ends: on SIGINT or SIGTERM, run `stop` (servers drain, buses disconnect),
 * then flush telemetry, then exit 0 (1 if stopping failed). A second signal during shutdown is ignored.
 */
export function exitOnSignals(logger: Logger, stop: () => Promise<void>, shutdownTelemetry: () => Promise<void>): void {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    // `on`, not `once`: Ctrl+C under tsx (npm start) delivers SIGINT twice, the terminal's and the one tsx relays.
    // With no listener left, the second would end the process mid-shutdown (tsx exits 130 when none is
    // registered) and leave PGlite unclosed; a repeat while stopping is ignored instead.
    process.on(signal, () => {
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
