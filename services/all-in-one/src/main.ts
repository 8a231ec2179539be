import './console-mode';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { env as envField, loadConfig } from '@cardlens/config';
import { createDatabase, DEFAULT_PGLITE_DIR } from '@cardlens/db';
import { z } from 'zod';
import { createLogger, exitOnSignals, startTelemetry } from '@cardlens/telemetry';
import { startEmbedded } from './embedded';

// `npm start`: every service in this one process on the embedded defaults (PGlite, in-process bus,
// in-memory rate limits), each gRPC server on its own loopback port, called through gRPC clients.
const rootDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const logger = createLogger('all-in-one');
// OTEL_EXPORTER=otlp (with OTEL_EXPORTER_OTLP_ENDPOINT) or console traces the embedded run like a cluster.
// METRICS_PORT serves every service's Prometheus metrics from this one process.
const { OTEL_EXPORTER, METRICS_PORT } = loadConfig(z.object({ OTEL_EXPORTER: envField.telemetryExporter(), METRICS_PORT: envField.metricsPort() }), process.env, 'all-in-one');
const telemetry = startTelemetry({ serviceName: 'cardlens-all-in-one', exporter: OTEL_EXPORTER, metricsPort: METRICS_PORT });
const dataDir = path.resolve(rootDir, process.env.PGLITE_DIR ?? DEFAULT_PGLITE_DIR);
const logFile = process.env.LOG_FILE;
const say = (line: string) => void (logFile ? process.stdout.write(`${line}\n`) : undefined);
say(`CardLens: starting every service (embedded mode). Logs: ${path.relative(process.cwd(), logFile ?? '') || logFile}`);
if (!existsSync(dataDir)) say('First start: loading the card catalog and the price snapshot into PGlite and generating the sample sales (about a minute, once).');
const database = await createDatabase({ kind: 'pglite', dataDir });
// Scan images and results live next to the database; the in-process bus forgets jobs on exit, so scans a
// previous run left queued or processing are queued again on start.
const env = { BLOB_DIR: path.resolve(rootDir, '.data/blobs'), REQUEUE_INTERRUPTED_SCANS: 'true', ...process.env };
const embedded = await startEmbedded({ database, env, logger });
// Where operator commands find this run's services (npm run billing:sandbox-clock): beside the PGlite folder
// (.data/embedded.json by default; the commands look beside PGLITE_DIR too).
mkdirSync(path.dirname(dataDir), { recursive: true });
writeFileSync(path.join(path.dirname(dataDir), 'embedded.json'), `${JSON.stringify({ baseUrl: embedded.baseUrl, billingGrpcAddress: `127.0.0.1:${embedded.ports.billing}` })}\n`);

process.stdout.write(
  `\nCardLens is running (embedded mode; data in ${path.relative(process.cwd(), dataDir) || dataDir}${logFile ? `; logs in ${path.relative(process.cwd(), logFile) || logFile}` : ''}).\n` +
    `Base URL: ${embedded.baseUrl}\nTry:      curl -s ${embedded.baseUrl}/v1/pricing\nStop:     Ctrl+C\n\n`,
);

exitOnSignals(
  logger,
  async () => {
    say('Stopping...');
    await embedded.stop();
    // Closing PGlite checkpoints it: without that, the next start recovers from the WAL and every sequence
    // jumps ahead by its prefetch (32 ids).
    await database.close();
    logger.info('stopped cleanly');
    say('CardLens stopped.');
  },
  telemetry,
);
