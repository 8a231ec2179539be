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

  remember(key: string, now = Date.now()): void {
    if (this.ttlMs <= 0) return;
    this.until.delete(key);
    this.until.set(key, now + this.ttlMs);
    while (this.until.size > this.maxEntries) this.until.delete(this.until.keys().next().value!);
  }
}
