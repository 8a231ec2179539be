/**
 * The service as shipped, for benches whose load generator must not share its process: `npm start`'s command
 * (the all-in-one process: PGlite on disk, the in-process bus, in-memory limits) in a child process of its own,
 * with its default telemetry and JSON logs (written to a file, as a service's stdout would be collected), and
 * clients that honour 429 and Retry-After.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { cpus as machineCpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export interface Served {
  baseUrl: string;
  /** The settings it runs with beyond npm start's defaults (printed beside the figures). */
  settings: Record<string, string>;
  pid: number;
  logFile: string;
  stop(): Promise<void>;
}

/**
 * Starts `node --import tsx --import @cardlens/telemetry/register services/all-in-one/src/main.ts` (what `npm start` runs
 * once bootstrap has nothing to do) with `settings` on top of the defaults, on a fresh data folder unless
 * BENCH_DATA_DIR names one to reuse (the first start loads the full catalog, about a minute).
 */
export async function startServed(settings: Record<string, string>, log: (line: string) => void): Promise<Served> {
  const work = mkdtempSync(path.join(tmpdir(), 'cardlens-bench-served-'));
  const dataDir = process.env.BENCH_DATA_DIR ? path.resolve(process.env.BENCH_DATA_DIR) : path.join(work, 'data');
  const port = 34000 + (process.pid % 4000);
  const baseUrl = `http://127.0.0.1:${port}`;
  const logFile = path.join(work, 'service.log');
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GATEWAY_PORT: String(port),
    PUBLIC_BASE_URL: baseUrl,
    PGLITE_DIR: path.join(dataDir, 'pglite'),
    BLOB_DIR: path.join(dataDir, 'blobs'),
    ...settings,
  };
  // BENCH_CPUS (a taskset list, e.g. `0` or `0-1`): the service and everything it starts run on those cores only,
  // for per-core figures; the bench process itself then keeps to the other cores where there are any.
  const cpus = process.env.BENCH_CPUS;
  const command = [process.execPath, '--import', 'tsx', '--import', '@cardlens/telemetry/register', 'services/all-in-one/src/main.ts'];
  if (cpus) {
    const others = Array.from({ length: machineCpus().length }, (_, i) => i).filter((cpu) => !cpuList(cpus).includes(cpu));
    if (others.length > 0) spawnSync('taskset', ['-pc', others.join(','), String(process.pid)], { stdio: 'ignore' });
  }
  const [file, ...args] = cpus ? ['taskset', '-c', cpus, ...command] : command;
  const child: ChildProcess = spawn(file!, args, {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = createWriteStream(logFile);
  child.stdout!.pipe(out);
  child.stderr!.pipe(out);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}); see ${logFile}`);
    const ready = await fetch(`${baseUrl}/readyz`).then((r) => r.ok, () => false);
    if (ready) break;
    if (Date.now() - started > 300_000) throw new Error(`the service did not become ready in 5 minutes; see ${logFile}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  log(`service up in ${((Date.now() - started) / 1000).toFixed(1)} s (pid ${child.pid}, logs ${logFile})`);
  return {
    baseUrl,
    settings,
    pid: child.pid!,
    logFile,
    async stop() {
      try {
        process.kill(-child.pid!, 'SIGINT');
      } catch {
        // already gone
      }
      const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
      if (!process.env.BENCH_DATA_DIR) rmSync(work, { recursive: true, force: true });
    },
  };
}

/** The cores of a taskset list such as `0`, `0-1` or `0,2-3`. */
export function cpuList(list: string): number[] {
  return list.split(',').flatMap((part) => {
    const [from, to] = part.split('-').map(Number);
    if (!Number.isInteger(from) || (to !== undefined && !Number.isInteger(to))) throw new Error(`BENCH_CPUS: not a CPU list: ${list}`);
    return Array.from({ length: (to ?? from!) - from! + 1 }, (_, i) => from! + i);
  });
}

/** Counts of what the clients met, reported beside the figures. */
export const clientStats = { throttled: 0, waitedMs: 0 };

/**
 * fetch as a well-behaved client: a 429 is waited out for its Retry-After (1 s when absent) and the request is
 * sent again, up to `maxWaitMs` in all. A request body must be replayable (a string or FormData).
 */
export async function politeFetch(url: string, init: RequestInit = {}, maxWaitMs = 120_000): Promise<Response> {
  const until = Date.now() + maxWaitMs;
  for (;;) {
    const response = await fetch(url, init);
    if (response.status !== 429 || Date.now() > until) return response;
    await response.arrayBuffer();
    const waitMs = Math.max(1, Number(response.headers.get('retry-after') ?? 1)) * 1000;
    clientStats.throttled++;
    clientStats.waitedMs += waitMs;
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
}

/** The machine beside the figures: cores, Node, and the settings. */
export function configurationLine(settings: Record<string, string>): string {
  // The machine's cores (availableParallelism would report this process's own pinned share).
  const cores = machineCpus().length;
  const pinned = process.env.BENCH_CPUS ? `; service pinned to CPU ${process.env.BENCH_CPUS} (taskset), ${cpuList(process.env.BENCH_CPUS).length} of ${cores} cores` : `, ${cores} cores`;
  const set = Object.entries(settings).map(([k, v]) => `${k}=${v}`).join(' ');
  return `configuration: npm start's process (node --import tsx, PGlite on disk, in-process bus, default telemetry and JSON logs), Node ${process.version}${pinned}${set ? `; beyond the defaults: ${set}` : ''}`;
}
