import { AppError } from '@cardlens/errors';

/**
 * Bounded concurrency with backpressure for the engine: at most `concurrency` analyses run at once (the
 * engine is CPU/GPU bound, so more would only slow every request), at most `maxQueued` wait; beyond that a
 * caller is refused at once with grader_busy (gRPC RESOURCE_EXHAUSTED) instead of piling up latency. A
 * waiting job whose caller gave up (deadline passed or cancelled) is dropped before it runs.
 */
export class AnalysisQueue {
  private running = 0;
  private readonly waiting: { start: () => void; abandoned: () => boolean }[] = [];
  /** Calls waiting outside the queue (for the same photo's analysis to end), counted among the waiting. */
  private held = 0;

  constructor(private readonly limits: { concurrency: number; maxQueued: number }) {}

  get stats(): { running: number; queued: number } {
    return { running: this.running, queued: this.waiting.length + this.held };
  }

  async run<T>(job: () => Promise<T>, abandoned: () => boolean = () => false): Promise<T> {
    if (this.running >= this.limits.concurrency) {
      this.refuseWhenFull();
      await new Promise<void>((resolve) => this.waiting.push({ start: resolve, abandoned }));
      if (abandoned()) {
        this.release();
        throw new AppError('service_unavailable', 'The request was abandoned before the grader could start it.');
      }
    } else {
      this.running++;
    }
    try {
      return await job();
    } finally {
      this.release();
    }
  }

  /**
   * A place among the waiting for a call that waits elsewhere first (a copy of a photo being analysed): refused
   * with grader_busy like run() when the queue is full. Returns its release (idempotent).
   */
  hold(): () => void {
    if (this.running >= this.limits.concurrency) this.refuseWhenFull();
    this.held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
    };
  }

  private refuseWhenFull(): void {
    if (this.waiting.length + this.held >= this.limits.maxQueued) {
      throw new AppError('grader_busy', 'The grader is at capacity. Retry in a few seconds.', { retryAfterSeconds: 2 });
    }
  }

  /** Hands the freed slot to the next waiter (an abandoned one passes it on at once), else frees it. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next.start();
    else this.running--;
  }
}
