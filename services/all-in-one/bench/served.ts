/**
 * The service as shipped, for benches whose load generator must not share its process: `npm start`'s command
 * (the all-in-one process: PGlite on disk, the in-process bus, in-memory limits) in a child process of its own,
 * with its default telemetry and JSON logs (written to a file, as a service's stdout would be collected), and
 * clients that honour 429 and Retry-After.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { cpus as machineCpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export interface Served {
  baseUrl: string;
  /** The settings it runs with beyond the defaults (printed beside the figures). */
  settings: Record<string, string>;
  /** The processes started (their children, the engine's, belong to the service too). */
  pids: number[];
  logFile: string;
  stop(): Promise<void>;
}

/**
 * Starts `node --import ./dist/register.mjs dist/all-in-one.mjs` (what `npm start` runs once bootstrap and the
 * build have nothing to do) with `settings` on top of the defaults, on a fresh data folder unless
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
  // npm start's own steps: compile (skipped when nothing changed), then the compiled process. BENCH_FROM_SOURCE=1:
  // `npm run start:source`'s process instead (tsx), for comparison.
  const fromSource = process.env.BENCH_FROM_SOURCE === '1';
  if (!fromSource) buildStart();
  const command = fromSource
    ? [process.execPath, '--import', 'tsx', '--import', '@cardlens/telemetry/register', 'services/all-in-one/src/main.ts']
    : [process.execPath, '--import', './dist/register.mjs', 'dist/all-in-one.mjs'];
  if (cpus) pinSelfAwayFrom(cpus);
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
    pids: [child.pid!],
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

/** The services of `--variant cluster`, each in its own process, as the chart runs them (dist/<entry>.mjs). */
const CLUSTER_ENTRIES = ['inference', 'valuation', 'billing', 'accounts', 'scans', 'scan-worker', 'grading', 'gateway'];

/**
 * The services as a cluster runs them: each in its own compiled process (the chart's command, `node --import
 * ./dist/register.mjs dist/<service>.mjs`), on the real Postgres (a fresh database, migrated by dist/migrate.mjs
 * as the migration Job does), Redis (own key prefixes) and Kafka (own topic prefix), with default telemetry and
 * JSON logs (one file). The valuation service loads the full catalog into the database at its first start.
 * Needs DATABASE_URL, REDIS_URL and KAFKA_BROKERS (defaults: the local ones `.ci/run` starts).
 */
export async function startCluster(settings: Record<string, string>, log: (line: string) => void): Promise<Served> {
  buildStart();
  const work = mkdtempSync(path.join(tmpdir(), 'cardlens-bench-cluster-'));
  const adminUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const suffix = `${process.pid}_${Date.now().toString(36)}`;
  const database = `cardlens_bench_${suffix}`;
  const base = 30000 + (process.pid % 20000);
  const address = (offset: number) => `127.0.0.1:${base + offset}`;
  const baseUrl = `http://${address(0)}`;
  const logFile = path.join(work, 'services.log');
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    DATABASE_URL: Object.assign(new URL(adminUrl), { pathname: `/${database}` }).toString(),
    MIGRATE_ON_START: 'false',
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
    KAFKA_TOPIC_PREFIX: `bench-${suffix}.`,
    RATE_LIMIT_KEY_PREFIX: `bench-${suffix}:`,
    GATEWAY_PORT: String(base),
    PUBLIC_BASE_URL: baseUrl,
    ...Object.fromEntries(
      ['accounts', 'billing', 'scans', 'grading', 'valuation', 'inference'].flatMap((service, i) => [
        [`${service.toUpperCase()}_GRPC_PORT`, String(base + i + 1)],
        [`${service.toUpperCase()}_GRPC_ADDRESS`, address(i + 1)],
      ]),
    ),
    SCAN_WORKER_HEALTH_PORT: String(base + 7),
    BLOB_DIR: path.join(work, 'blobs'),
    GRADING_TEMP_DIR: path.join(work, 'grading-tmp'),
    CATALOG_AUTOLOAD: 'true',
    PRICES_AUTOLOAD: 'true',
    SAMPLE_SALES: 'true',
    ...settings,
  };
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const migrated = spawnSync(process.execPath, ['dist/migrate.mjs', 'migrate'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  if (migrated.status !== 0) throw new Error('migrations failed');
  const out = createWriteStream(logFile);
  const cpus = process.env.BENCH_CPUS;
  if (cpus) pinSelfAwayFrom(cpus);
  const children = CLUSTER_ENTRIES.map((entry) => {
    const command = [process.execPath, '--import', './dist/register.mjs', `dist/${entry}.mjs`];
    const [file, ...args] = cpus ? ['taskset', '-c', cpus, ...command] : command;
    const child = spawn(file!, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.pipe(out, { end: false });
    child.stderr!.pipe(out, { end: false });
    return child;
  });
  const started = Date.now();
  for (;;) {
    const exited = children.findIndex((child) => child.exitCode !== null);
    if (exited >= 0) throw new Error(`${CLUSTER_ENTRIES[exited]} exited (${children[exited]!.exitCode}); see ${logFile}`);
    // The gateway's readiness covers the services it calls; inference and valuation (which loads the catalog into
    // the database on its first start before it listens) are reached by the scan worker: their ports too.
    const listening = await Promise.all([1, 2, 3, 4, 5, 6].map((offset) => accepts(base + offset)));
    if (listening.every(Boolean) && (await fetch(`${baseUrl}/readyz`).then((r) => r.ok, () => false))) break;
    if (Date.now() - started > 600_000) throw new Error(`the services did not become ready in 10 minutes; see ${logFile}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  log(`cluster up in ${((Date.now() - started) / 1000).toFixed(1)} s (${children.length} processes, database ${database}, logs ${logFile})`);
  return {
    baseUrl,
    settings: { ...settings, DATABASE: 'Postgres', BUS: 'Kafka', LIMITS: 'Redis' },
    pids: children.map((child) => child.pid!),
    logFile,
    async stop() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
              child.once('exit', () => (clearTimeout(timer), resolve()));
              child.kill('SIGTERM');
            }),
        ),
      );
      const drop = new pg.Client({ connectionString: adminUrl });
      await drop.connect().then(() => drop.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)).finally(() => drop.end()).catch(() => {});
      if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
    },
  };
}

/** npm start's compile step (tools/build-start.mjs: skipped when no input changed). */
function buildStart(): void {
  const build = spawnSync(process.execPath, ['tools/build-start.mjs'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error('tools/build-start.mjs failed');
}

/** Whether something accepts TCP connections on a loopback port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => (socket.end(), resolve(true)));
    socket.on('error', () => resolve(false));
  });
}

/** Keeps the bench process off the cores the service is pinned to (BENCH_CPUS), where the machine has others. */
function pinSelfAwayFrom(cpus: string): void {
  const others = Array.from({ length: machineCpus().length }, (_, i) => i).filter((cpu) => !cpuList(cpus).includes(cpu));
  if (others.length > 0) spawnSync('taskset', ['-pc', others.join(','), String(process.pid)], { stdio: 'ignore' });
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
export function configurationLine(settings: Record<string, string>, what = "npm start's process (PGlite on disk, in-process bus, default telemetry and JSON logs)"): string {
  // The machine's cores (availableParallelism would report this process's own pinned share).
  const cores = machineCpus().length;
  const pinned = process.env.BENCH_CPUS ? `; service pinned to CPU ${process.env.BENCH_CPUS} (taskset), ${cpuList(process.env.BENCH_CPUS).length} of ${cores} cores` : `, ${cores} cores`;
  const set = Object.entries(settings).map(([k, v]) => `${k}=${v}`).join(' ');
  const source = process.env.BENCH_FROM_SOURCE === '1' ? ', from source through tsx (BENCH_FROM_SOURCE=1)' : ', compiled';
  return `configuration: ${what}${source}, Node ${process.version}${pinned}${set ? `; beyond the defaults: ${set}` : ''}`;
}

/** One process of the service's tree: its memory and the CPU it has used so far. */
export interface ServiceProcess {
  pid: number;
  /** An engine child process (the vision engine), as opposed to the service's own process. */
  engine: boolean;
  rssBytes: number;
  cpuMs: number;
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
const PAGE_BYTES = Number(spawnSync('getconf', ['PAGESIZE'], { encoding: 'utf8' }).stdout.trim()) || 4096;

/**
 * The processes started from `roots` (the roots and every descendant), from /proc (Linux): resident memory and user +
 * system CPU time of each. Processes that exit between reads are skipped.
 */
export function processTree(roots: number[]): ServiceProcess[] {
  const all: (ServiceProcess & { ppid: number })[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces, inside parentheses).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      all.push({
        pid: Number(entry),
        ppid: Number(fields[1]),
        engine: readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('engine-process'),
        rssBytes: Number(fields[21]) * PAGE_BYTES,
        cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS,
      });
    } catch {
      // gone meanwhile
    }
  }
  const inTree = new Set(roots);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (inTree.has(p.pid) || !inTree.has(p.ppid)) continue;
      inTree.add(p.pid);
      grew = true;
    }
  }
  return all.filter((p) => inTree.has(p.pid)).map(({ ppid: _ppid, ...p }) => p);
}

/**
 * Samples a process tree's total resident memory every `everyMs` until stopped: the peak, and the CPU used by
 * every process seen (an engine process that stopped meanwhile counts with its last reading).
 */
export function sampleProcessTree(roots: number[], everyMs = 200) {
  let peakBytes = 0;
  const lastCpu = new Map<number, { engine: boolean; cpuMs: number }>();
  const sample = () => {
    const group = processTree(roots);
    peakBytes = Math.max(peakBytes, group.reduce((sum, p) => sum + p.rssBytes, 0));
    for (const p of group) lastCpu.set(p.pid, { engine: p.engine, cpuMs: p.cpuMs });
  };
  sample();
  const timer = setInterval(sample, everyMs);
  const cpu = () => {
    let all = 0;
    let engine = 0;
    for (const p of lastCpu.values()) {
      all += p.cpuMs;
      if (p.engine) engine += p.cpuMs;
    }
    return { allMs: all, engineMs: engine };
  };
  return {
    cpu: () => (sample(), cpu()),
    get peakBytes() {
      return peakBytes;
    },
    stop: () => clearInterval(timer),
  };
}
