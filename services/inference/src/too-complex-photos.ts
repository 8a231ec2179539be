import { createHash } from 'node:crypto';

/**
 * Photos the engine gave up on (past its full time or memory budget), remembered by content for a while, so the
 * same bytes are answered image_too_complex at once instead of taking an engine process for another full budget
 * (a poison photo resubmitted, or a job redelivered). Only a failure under the full configured budget is
 * remembered: one cut short by its caller's own deadline says nothing about the photo. Bounded: the oldest entries
 * go first.
 */
export class TooComplexPhotos {
  private readonly until = new Map<string, number>();
  /** Photos being analysed now, by key: the same bytes arriving meanwhile wait for that analysis's outcome. */
  private readonly analysing = new Map<string, Promise<void>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The key of a front (and back) pair. */
  static keyOf(front: Uint8Array, back?: Uint8Array): string {
    const hash = createHash('sha256').update(front);
    if (back && back.length > 0) hash.update('\0back\0').update(back);
    return hash.digest('hex');
  }

  has(key: string, now = Date.now()): boolean {
    const expires = this.until.get(key);
    if (expires === undefined) return false;
    if (expires > now) return true;
    this.until.delete(key);
    return false;
  }

  /**
   * Runs `analysis` of the photo `key` once the same bytes are no longer being analysed (a poison photo submitted
   * several times at once reaches the engine once: the copies wait, then find it remembered). `ready`, asked after
   * each wait, may end the wait with its own answer (the photo now remembered); `hold`, called as a copy starts to
   * wait, takes its place among the analyses waiting (it may refuse: the queue is full) and returns its release.
   */
  async onePerPhoto<T>(key: string, analysis: () => Promise<T>, ready: () => void = () => {}, hold: () => () => void = () => () => {}): Promise<T> {
    for (let running = this.analysing.get(key); running; running = this.analysing.get(key)) {
      const release = hold();
      try {
        await running;
      } finally {
        release();
      }
      ready();
    }
    const outcome = analysis();
    const settled = outcome.then(
      () => {},
      () => {},
    );
    this.analysing.set(key, settled);
    try {
      return await outcome;
    } finally {
      if (this.analysing.get(key) === settled) this.analysing.delete(key);
    }
  }

  remember(key: string, now = Date.now()): void {
    if (this.ttlMs <= 0) return;
    this.until.delete(key);
    this.until.set(key, now + this.ttlMs);
    while (this.until.size > this.maxEntries) this.until.delete(this.until.keys().next().value!);
  }
}
