// Imported first by main.ts, before any logger exists: on a terminal, `npm start` keeps the console short (the
// banner, progress and warnings as one-line messages) and writes every JSON log record to logs/cardlens.log beside
// the PGlite folder (.data/logs/cardlens.log by default),
// which the inference thread and the engine processes inherit through LOG_FILE. Not on a terminal (CI, a
// container, a pipe), or with LOG_FILE or LOG_CONSOLE=json set, logs stay JSON on stdout.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PGLITE_DIR } from '@cardlens/db';

const rootDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const dataDir = path.resolve(rootDir, process.env.PGLITE_DIR ?? DEFAULT_PGLITE_DIR);

if (process.stdout.isTTY && !process.env.LOG_FILE && process.env.LOG_CONSOLE !== 'json') {
  process.env.LOG_FILE = path.join(path.dirname(dataDir), 'logs', 'cardlens.log');
}
