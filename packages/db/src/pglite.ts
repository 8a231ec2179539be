// PGlite (Postgres compiled to WebAssembly) for the embedded mode and for throwaway databases.
//
// PGlite is heavy (a fresh start runs initdb: 3-6 s and about 1.1 GB peak memory; reopening a saved data
// directory takes about 0.6-1 s) and single-connection, so one process opens ONE instance per data directory
// and every service shares it, each with its own PrismaClient (see client.ts for what that means for
// transactions). Two processes must never open the same data directory: a lock file next to it refuses that.
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

export type { PGlite };

/**
 * Extension modules every PGlite we open carries, so migrations may `CREATE EXTENSION` them (on the embedded
 * database and on the shadow database used for diffs alike). Loading a module does not create the extension.
 */
export const PGLITE_EXTENSIONS = { pg_trgm };

export type CardlensPGlite = PGlite;

interface Entry {
  dataDir: string;
  lockPath: string;
  refs: number;
  opening: Promise<PGlite>;
}

const byDir = new Map<string, Entry>();
const byInstance = new Map<PGlite, Entry>();

function isMemory(dataDir: string): boolean {
  return dataDir === '' || dataDir.startsWith('memory://');
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `<dataDir>.lock` holds the pid of the process that has the data directory open. */
function acquireLock(lockPath: string): void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeFileSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number.parseInt(readFileSync(lockPath, 'utf8').trim(), 10);
      // Our own pid here means another copy of this module (e.g. another jest test file in the same worker)
      // has the directory open: refuse too, two instances on one directory corrupt it.
      if (Number.isInteger(pid) && processAlive(pid)) {
        throw new Error(
          `PGlite data directory ${lockPath.slice(0, -'.lock'.length)} is in use by process ${pid}` +
            `${pid === process.pid ? ' (this process, opened elsewhere and not closed)' : ''} (${lockPath}); ` +
            'PGlite is single-process: close it or stop that process first',
          { cause: error },
        );
      }
      rmSync(lockPath, { force: true }); // stale lock of a process that is gone
    }
  }
  throw new Error(`could not lock ${lockPath}`);
}

/**
 * Opens (creating it on first use) a persistent PGlite in `dataDir`, with the pg_trgm extension module
 * loaded. Within one process, opening the same directory again returns the SAME instance (reference
 * counted): every service of the embedded mode shares it. Release each open with closePGlite().
 * `memory://` (or '') gives a new in-memory instance each call.
 */
export async function openPGlite(dataDir: string): Promise<PGlite> {
  if (isMemory(dataDir)) return createPGlite(dataDir === '' ? 'memory://' : dataDir);
  const dir = path.resolve(dataDir);
  const existing = byDir.get(dir);
  if (existing) {
    existing.refs++;
    try {
      return await existing.opening;
    } catch (error) {
      existing.refs--;
      throw error;
    }
  }
  mkdirSync(path.dirname(dir), { recursive: true });
  const lockPath = `${dir}.lock`;
  acquireLock(lockPath);
  const entry: Entry = { dataDir: dir, lockPath, refs: 1, opening: createPGlite(dir) };
  byDir.set(dir, entry);
  try {
    const pglite = await entry.opening;
    byInstance.set(pglite, entry);
    return pglite;
  } catch (error) {
    byDir.delete(dir);
    rmSync(lockPath, { force: true });
    throw error;
  }
}

/** Releases one openPGlite(); the instance is closed (and its lock removed) when the last user releases it. */
export async function closePGlite(pglite: PGlite): Promise<void> {
  const entry = byInstance.get(pglite);
  if (!entry) {
    if (!pglite.closed) await pglite.close();
    return;
  }
  entry.refs--;
  if (entry.refs > 0) return;
  byInstance.delete(pglite);
  byDir.delete(entry.dataDir);
  try {
    if (!pglite.closed) await pglite.close();
  } finally {
    rmSync(entry.lockPath, { force: true });
  }
}

// initdb dominates a fresh start (4-6 s), so the first fresh instance dumps its pristine data directory to a
// tarball (node_modules/.cache/cardlens-db, else the OS temp folder) and later fresh instances, in memory or on
// disk, load that instead (about 1-2 s). The tarball is keyed by the PGlite version; a bad one is dropped.

function pgliteModulePaths(): { version: string; nodeModules: string | undefined } {
  try {
    const require = createRequire(import.meta.url);
    const entry = require.resolve('@electric-sql/pglite'); // <node_modules>/@electric-sql/pglite/dist/index.cjs
    const pkgDir = path.resolve(entry, '..', '..');
    const pkg = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { version?: string };
    return { version: pkg.version ?? 'unknown', nodeModules: path.resolve(pkgDir, '..', '..') };
  } catch {
    return { version: 'unknown', nodeModules: undefined };
  }
}

function templatePaths(): string[] {
  const { version, nodeModules } = pgliteModulePaths();
  const file = `pglite-template-${version}.tar`;
  return [
    ...(nodeModules ? [path.join(nodeModules, '.cache', 'cardlens-db', file)] : []),
    path.join(os.tmpdir(), `cardlens-db-${file}`),
  ];
}

function readTemplate(): { path: string; blob: Blob } | undefined {
  for (const candidate of templatePaths()) {
    try {
      if (existsSync(candidate)) return { path: candidate, blob: new Blob([readFileSync(candidate)]) };
    } catch {
      // unreadable: try the next place
    }
  }
  return undefined;
}

async function saveTemplate(pglite: PGlite): Promise<void> {
  const tar = Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer());
  for (const candidate of templatePaths()) {
    try {
      mkdirSync(path.dirname(candidate), { recursive: true });
      const tmp = `${candidate}.${process.pid}.${Date.now()}`;
      writeFileSync(tmp, tar);
      renameSync(tmp, candidate);
      return;
    } catch {
      // not writable: try the next place
    }
  }
}

function isEmptyDir(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0;
}

async function createPGlite(dataDir: string): Promise<PGlite> {
  const options = { dataDir, extensions: PGLITE_EXTENSIONS };
  if (!isMemory(dataDir) && !isEmptyDir(dataDir)) return PGlite.create(options);
  if (!isMemory(dataDir)) mkdirSync(dataDir, { recursive: true });
  const template = readTemplate();
  if (template) {
    try {
      return await PGlite.create({ ...options, loadDataDir: template.blob });
    } catch {
      rmSync(template.path, { force: true });
      if (!isMemory(dataDir)) {
        rmSync(dataDir, { recursive: true, force: true });
        mkdirSync(dataDir, { recursive: true });
      }
    }
  }
  const pglite = await PGlite.create(options);
  try {
    await saveTemplate(pglite);
  } catch {
    // the template is an optimisation only
  }
  return pglite;
}

/** A new, empty in-memory PGlite (pg_trgm loaded): shadow databases for diffs, tests. Close it when done. */
export function createThrowawayPGlite(): Promise<PGlite> {
  return createPGlite('memory://');
}
