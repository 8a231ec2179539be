import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { AppError, isErrorCode } from '@cardlens/errors';
import type { Logger } from '@cardlens/telemetry';
import type { AnalyzeOptions } from '@cardlens/vision';
import { notStartedInTime } from './analysis-window';
import type { AnalysisSummary, EngineReply, EngineRequest } from './engine-protocol';

/** Defined (true) by the compiled builds (tools/bundle.mjs: the images' dist/main.mjs, `npm start`'s dist/). */
declare const CARDLENS_COMPILED: boolean | undefined;
const COMPILED = typeof CARDLENS_COMPILED !== 'undefined' && CARDLENS_COMPILED;
// From source, tsx runs the TypeScript entry, as it runs the service itself; compiled, its twin beside the
// bundle, dist/engine-process.mjs (this module's URL there is its repository path under the output's root).
const ENGINE_ENTRY = fileURLToPath(new URL(COMPILED ? '../../../dist/engine-process.mjs' : './engine-process.ts', import.meta.url));
const ENGINE_LOADER = COMPILED ? [] : ['--import', 'tsx'];

export interface EngineProcessesOptions {
  /** Engine processes at most, i.e. analyses at once. */
  size: number;
  /**
   * Processes started at once and always kept (default: all of them). The others start when an analysis has to
   * wait for a process, and stop after `idleMs` without work, so an idle service holds one engine's memory.
   */
  warm?: number;
  /** How long an extra process may stay idle before it stops (default 60 s). */
  idleMs?: number;
  /** Wall-clock budget of one analysis: past it the process is killed and the analysis answers image_too_complex. */
  budgetMs: number;
  /** V8 heap limit of an engine process (MB): an image that needs more ends its process the same way. */
  maxHeapMb: number;
  logger: Logger;
  /** How long a new process may take to load and warm up the engine. */
  startTimeoutMs?: number;
}

const tooComplex = (why: string) =>
  new AppError(
    'image_too_complex',
    `The photo could not be analysed ${why}; it will not be retried. Photograph the card alone, flat and filling most of the frame, on a plain background, and submit it again.`,
  );

/** One engine process and the analysis it is running, if any. */
class EngineProcess {
  readonly ready: Promise<{ backend: string; version: string; warmUpMs: number }>;
  private readonly child: ChildProcess;
  private job: { id: number; resolve: (a: AnalysisSummary) => void; reject: (e: unknown) => void; timer: NodeJS.Timeout } | undefined;
  private nextId = 1;
  /** Set once it is killed or has exited: it takes no more work. */
  gone = false;
  /** When it last finished an analysis (or became ready). */
  idleSince = Date.now();

  constructor(options: EngineProcessesOptions, onExit: (process: EngineProcess) => void) {
    this.child = fork(ENGINE_ENTRY, [], {
      // The heap limit is the memory budget.
      execArgv: [...ENGINE_LOADER, `--max-old-space-size=${options.maxHeapMb}`],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, LOG_LEVEL: options.logger.level },
    });
    this.ready = new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`engine process did not start within ${options.startTimeoutMs ?? 180_000} ms`));
        this.kill();
      }, options.startTimeoutMs ?? 180_000);
      this.child.once('message', (reply: EngineReply) => {
        clearTimeout(timer);
        if (reply.type === 'ready') resolve(reply);
        else reject(new Error(`engine process sent ${reply.type} before ready`));
      });
      this.child.once('exit', () => {
        clearTimeout(timer);
        reject(new Error('engine process exited while starting'));
      });
    });
    this.ready.catch(() => {}); // observed by the pool
    this.child.on('message', (reply: EngineReply) => this.settle(reply));
    this.child.on('exit', (code, signal) => {
      this.gone = true;
      const job = this.job;
      this.job = undefined;
      if (job) {
        clearTimeout(job.timer);
        // V8 aborts a process that reaches its heap limit: the photo needed more memory than an analysis may use.
        job.reject(signal === 'SIGABRT' || code === 134 ? tooComplex('within the memory allowed') : new Error(`engine process exited (code ${code}, signal ${signal})`));
      }
      onExit(this);
    });
  }

  run(request: Omit<EngineRequest, 'id'>, budgetMs: number): Promise<AnalysisSummary> {
    if (this.job || this.gone) return Promise.reject(new Error('engine process is not free'));
    const id = this.nextId++;
    return new Promise<AnalysisSummary>((resolve, reject) => {
      const timer = setTimeout(() => {
        // Past the budget: the only sure way to stop the work is to end the process.
        const job = this.job;
        this.job = undefined;
        this.kill();
        job?.reject(tooComplex(`within ${Math.round(budgetMs / 1000)} s`));
      }, budgetMs);
      this.job = { id, resolve, reject, timer };
      this.child.send({ ...request, id } satisfies EngineRequest);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Running an analysis now. */
  get busy(): boolean {
    return this.job !== undefined;
  }

  kill(): void {
    this.gone = true;
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  private settle(reply: EngineReply): void {
    if (reply.type === 'ready' || !this.job || reply.id !== this.job.id) return;
    const job = this.job;
    this.job = undefined;
    clearTimeout(job.timer);
    if (reply.type === 'result') job.resolve(reply.analysis);
    else if ('code' in reply.error && isErrorCode(reply.error.code)) job.reject(new AppError(reply.error.code, reply.error.detail));
    else job.reject(new Error('detail' in reply.error ? reply.error.detail : reply.error.message));
  }
}

/**
 * The card engine in `size` child processes, one analysis each at a time, every analysis under a hard time and
 * memory budget. An analysis past its budget (a photo that makes the engine work for minutes) has its process
 * killed and answers image_too_complex (422, so no caller retries it); a fresh process takes the slot. Other
 * requests wait at most one budget for a slot, never behind a runaway analysis. The analysis queue in front
 * keeps at most `size` analyses running, so a free slot is normally waiting.
 */
export class EngineProcesses {
  private readonly slots: (EngineProcess | undefined)[];
  private readonly free: EngineProcess[] = [];
  private readonly waiters: ((process: EngineProcess) => void)[] = [];
  private closed = false;
  backend = '';
  version = '';

  private readonly warm: number;
  private retireTimer: NodeJS.Timeout | undefined;

  private constructor(private readonly options: EngineProcessesOptions) {
    this.slots = new Array<EngineProcess | undefined>(options.size).fill(undefined);
    this.warm = Math.min(options.size, Math.max(1, options.warm ?? options.size));
  }

  /** Starts the warm processes and waits until each has loaded and warmed up its engine. */
  static async start(options: EngineProcessesOptions): Promise<EngineProcesses> {
    const pool = new EngineProcesses(options);
    try {
      const ready = await Promise.all(pool.slots.slice(0, pool.warm).map((_, slot) => pool.spawn(slot)));
      pool.backend = ready[0]!.backend;
      pool.version = ready[0]!.version;
      if (pool.warm < options.size) {
        const idleMs = options.idleMs ?? 60_000;
        pool.retireTimer = setInterval(() => pool.retireIdle(idleMs), Math.max(100, Math.min(10_000, idleMs / 2)));
        pool.retireTimer.unref();
      }
      options.logger.info(
        { processes: pool.warm, maxProcesses: options.size, backend: pool.backend, version: pool.version, warmUpMs: Math.round(ready[0]!.warmUpMs) },
        'engine processes ready',
      );
      return pool;
    } catch (error) {
      await pool.close();
      throw error;
    }
  }

  /**
   * One analysis, within the configured budget or `budgetMs` when that is shorter (the caller's deadline). `begin`,
   * asked once a process is free and before the photo is sent to it, may still call the analysis off (its caller's
   * start window closed while it waited for a process): then the engine never sees the photo (grader_busy).
   */
  async analyzeCard(
    input: { front: Uint8Array; back?: Uint8Array },
    options: AnalyzeOptions,
    budgetMs = this.options.budgetMs,
    begin: () => boolean = () => true,
  ): Promise<AnalysisSummary> {
    if (this.closed) throw new AppError('service_unavailable', 'The grader is shutting down.');
    const process = this.free.pop() ?? (await this.waitForProcess());
    if (!begin()) {
      this.release(process);
      throw notStartedInTime();
    }
    try {
      return await process.run({ input, options }, Math.max(1, Math.min(budgetMs, this.options.budgetMs)));
    } finally {
      if (!process.gone) this.release(process);
    }
  }

  /** The engine processes' ids (for operators and tests); a slot being restarted has none. */
  get pids(): number[] {
    return this.slots.flatMap((p) => (p && !p.gone && p.pid !== undefined ? [p.pid] : []));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.retireTimer);
    for (const process of this.slots) process?.kill();
  }

  /** No process is free: one more starts if there is room (it serves whoever waits first once ready). */
  private waitForProcess(): Promise<EngineProcess> {
    const empty = this.slots.indexOf(undefined);
    const starting = this.slots.filter((p) => p && !p.gone && !this.free.includes(p) && !p.busy).length;
    if (empty >= 0 && starting <= this.waiters.length) {
      this.spawn(empty).catch((err: unknown) => this.options.logger.error({ err, slot: empty }, 'engine process failed to start'));
    }
    return new Promise<EngineProcess>((resolve) => this.waiters.push(resolve));
  }

  /** Stops extra processes (beyond the warm ones) that have been free for `idleMs`. */
  private retireIdle(idleMs: number): void {
    const live = () => this.slots.filter((p) => p !== undefined).length;
    for (const process of [...this.free]) {
      if (live() <= this.warm || Date.now() - process.idleSince < idleMs) continue;
      const slot = this.slots.indexOf(process);
      // Emptied first, so its exit does not start a replacement.
      this.slots[slot] = undefined;
      this.free.splice(this.free.indexOf(process), 1);
      process.kill();
      this.options.logger.info({ slot, idleMs }, 'idle engine process stopped');
    }
  }

  /** Starts the process of a slot; when one dies (killed past its budget, or crashed) its slot starts another. */
  private async spawn(slot: number, attempt = 0): Promise<{ backend: string; version: string; warmUpMs: number }> {
    let started = false;
    const process = new EngineProcess(this.options, (gone) => {
      if (this.slots[slot] !== gone || this.closed) return;
      const at = this.free.indexOf(gone);
      if (at >= 0) this.free.splice(at, 1);
      this.slots[slot] = undefined;
      // A replacement at once; a process that keeps dying while starting backs off (up to 30 s).
      const delay = attempt === 0 ? 0 : Math.min(30_000, 500 * 2 ** attempt);
      setTimeout(() => {
        this.spawn(slot, started ? 0 : attempt + 1).catch((err: unknown) => this.options.logger.error({ err, slot }, 'engine process failed to start'));
      }, delay).unref();
    });
    this.slots[slot] = process;
    const ready = await process.ready;
    started = true;
    this.release(process);
    return ready;
  }

  private release(process: EngineProcess): void {
    process.idleSince = Date.now();
    const waiter = this.waiters.shift();
    if (waiter) waiter(process);
    else this.free.push(process);
  }
}
