import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDatabase, DEFAULT_PGLITE_DIR } from '@cardlens/db';
import { createLogger, startTelemetry } from '@cardlens/telemetry';
import { startEmbedded } from './embedded';

// `npm start`: every service in this one process on the embedded defaults (PGlite, in-process bus,
// in-memory rate limits), each gRPC server on its own loopback port, called through gRPC clients.
const rootDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const logger = createLogger('all-in-one');
const telemetry = startTelemetry({ serviceName: 'cardlens-all-in-one', exporter: 'none' });
const dataDir = path.resolve(rootDir, process.env.PGLITE_DIR ?? DEFAULT_PGLITE_DIR);
const database = await createDatabase({ kind: 'pglite', dataDir });
const embedded = await startEmbedded({ database, env: process.env, logger });

process.stdout.write(`\nCardLens is running (embedded mode; data in ${path.relative(process.cwd(), dataDir) || dataDir}).\nBase URL: ${embedded.baseUrl}\nTry:      curl -s ${embedded.baseUrl}/v1/pricing\nStop:     Ctrl+C\n\n`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    void embedded
      .stop()
      .then(() => database.close())
      .then(() => telemetry())
      .then(() => process.exit(0), (error: unknown) => {
        logger.error({ err: error }, 'unclean shutdown');
        process.exit(1);
      });
  });
}
