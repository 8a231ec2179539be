/**
 * Turns on the vision engine for one scan worker's jobs. The worker takes several jobs of each bus partition at
 * once (the bus's keyConcurrency), so every waiting scan is here rather than behind its partition's earlier ones
 * while another partition's later scans go first; at most `slots` analyses are sent to the engine at once (as many
 * as it runs side by side: more would only queue there, where a wait counts against the call's deadline).
 *
 * Who goes next when a slot frees: fair shares between accounts first, then first come, first served. The next
 * turn goes to the account with the fewest analyses on the engine now; among those, to the one that has had the
 * least engine time since the engine was last idle (turns held, decayed with a half-life of
 * ENGINE_TIME_HALF_LIFE_MS: as in fair queueing, time used while nobody waited harms nobody and is forgotten);
 * among those, to the scan queued earliest (then the job that arrived first). One account's burst (or a flood of
 * photos that take the engine long) thus takes at most its share of the slots while other accounts wait, and its
 * queued scans, however early, go behind the scans of accounts that have not had the engine yet; with one account
 * waiting it is plain FCFS.
 *
 * Copies of the same photos (same content hashes) never hold two turns: a copy waits, without a turn, until the
 * scan of those photos on the engine is done (a poison photo sent again and again then reaches the engine once,
 * and its copies are answered from the inference service's memory instead of holding slots other accounts need).
 */
/**
 * How fast an account's engine time is forgiven while the engine stays busy: halved every minute, so a flood's
 * account goes behind the others while it floods and is on equal terms again a few minutes after.
 */
export const ENGINE_TIME_HALF_LIFE_MS = 60_000;

export class EngineTurns {
  /** Analyses on the engine now, in all and per account. */
  private running = 0;
  private readonly runningByAgent = new Map<number, number>();
  /** Engine time each account's turns have held, decayed to `at` (ms of the monotonic clock). */
  private readonly engineTimeByAgent = new Map<number, { ms: number; at: number }>();
  /** Turns held now per photo key (the scan's front and back content hashes). */
  private readonly runningByPhoto = new Map<string, number>();
  private readonly waiting: Waiting[] = [];
  private arrivals = 0;

  constructor(
    private readonly slots: number,
    /** How often a waiting job's heartbeat is called (well under Kafka's 6-30 s session timeout). */
    private readonly heartbeatMs = 3000,
    /** The monotonic clock engine time is measured on (ms). */
    private readonly now: () => number = () => performance.now(),
  ) {}

  get stats(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /**
   * Resolves with this scan's turn once it is next (see the class) and a slot is free; the turn must be released
   * (release() may be called more than once). While waiting it calls `heartbeat` every few seconds (a Kafka
   * consumer's liveness); when `signal` aborts (the worker stops) it stops waiting and throws.
   */
  async take(
    scan: { agentId: number; queuedAt: Date; photoKey?: string | null },
    options: { signal?: AbortSignal; heartbeat?: () => Promise<void> } = {},
  ): Promise<{ release(): void }> {
    const { signal, heartbeat } = options;
    if (signal?.aborted) throw new Error('the scan worker is stopping');
    const photo = scan.photoKey ?? undefined;
    if (this.running < this.slots && this.waiting.length === 0 && !this.onEngine(photo)) return this.granted(scan.agentId, photo);
    const entry: Waiting = { agentId: scan.agentId, photo, queuedAt: scan.queuedAt.getTime(), arrival: this.arrivals++, grant: () => {} };
    let beat: NodeJS.Timeout | undefined;
    let onAbort = () => {};
    try {
      await new Promise<void>((resolve, reject) => {
        entry.grant = resolve;
        this.waiting.push(entry);
        // A slot left free for copies of photos on the engine goes to this scan if it may have it.
        this.fillFreeSlots();
        if (heartbeat) beat = setInterval(() => void heartbeat().catch(() => {}), this.heartbeatMs);
        onAbort = () => {
          const index = this.waiting.indexOf(entry);
          if (index < 0) return; // granted already
          this.waiting.splice(index, 1);
          reject(new Error('the scan worker is stopping'));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    } finally {
      clearInterval(beat);
      signal?.removeEventListener('abort', onAbort);
    }
    return this.granted(scan.agentId, photo, true);
  }

  /**
   * A turn; `handedOver` when a release (or fillFreeSlots) passed a slot on (then it is counted already, in all, for
   * its account and for its photo).
   */
  private granted(agentId: number, photo: string | undefined, handedOver = false): { release(): void } {
    if (!handedOver) {
      this.running++;
      this.count(agentId, photo, +1);
    }
    let released = false;
    const started = this.now();
    return {
      release: () => {
        if (released) return;
        released = true;
        this.count(agentId, photo, -1);
        this.addEngineTime(agentId, this.now() - started);
        // The slot goes straight to the next waiter, counted for its account at once (a second release in the
        // same tick must see it), so no later arrival can take it in between.
        const next = this.next();
        if (next) {
          this.count(next.agentId, next.photo, +1);
          next.grant();
        } else {
          this.running--;
          if (this.running === 0 && this.waiting.length === 0) this.engineTimeByAgent.clear();
        }
      },
    };
  }

  /** Free slots (left free while only copies of photos on the engine waited) to the waiters that may have them. */
  private fillFreeSlots(): void {
    while (this.running < this.slots) {
      const next = this.next();
      if (!next) return;
      this.running++;
      this.count(next.agentId, next.photo, +1);
      next.grant();
    }
  }

  /** An account's engine time, decayed to `now`. */
  private engineTime(agentId: number, now: number): number {
    const used = this.engineTimeByAgent.get(agentId);
    return used ? used.ms * 2 ** (-(now - used.at) / ENGINE_TIME_HALF_LIFE_MS) : 0;
  }

  private addEngineTime(agentId: number, ms: number): void {
    const now = this.now();
    this.engineTimeByAgent.set(agentId, { ms: this.engineTime(agentId, now) + Math.max(0, ms), at: now });
    // Accounts whose engine time has decayed to nothing are forgotten (the map stays as small as the active accounts).
    for (const id of this.engineTimeByAgent.keys()) if (this.engineTime(id, now) < 1) this.engineTimeByAgent.delete(id);
  }

  private onEngine(photo: string | undefined): boolean {
    return photo !== undefined && this.runningByPhoto.has(photo);
  }

  private count(agentId: number, photo: string | undefined, delta: number): void {
    const now = (this.runningByAgent.get(agentId) ?? 0) + delta;
    if (now === 0) this.runningByAgent.delete(agentId);
    else this.runningByAgent.set(agentId, now);
    if (photo === undefined) return;
    const copies = (this.runningByPhoto.get(photo) ?? 0) + delta;
    if (copies === 0) this.runningByPhoto.delete(photo);
    else this.runningByPhoto.set(photo, copies);
  }

  /**
   * Removes and returns the waiter to serve next: fewest analyses of its account running, then least engine time
   * lately, then queued earliest; never a copy of photos on the engine now.
   */
  private next(): Waiting | undefined {
    const now = this.now();
    let best = -1;
    let bestTime = 0;
    for (let i = 0; i < this.waiting.length; i++) {
      const w = this.waiting[i]!;
      if (this.onEngine(w.photo)) continue;
      const time = this.engineTime(w.agentId, now);
      if (best < 0 || this.before(w, time, this.waiting[best]!, bestTime)) {
        best = i;
        bestTime = time;
      }
    }
    return best < 0 ? undefined : this.waiting.splice(best, 1)[0];
  }

  private before(a: Waiting, timeA: number, b: Waiting, timeB: number): boolean {
    const shareA = this.runningByAgent.get(a.agentId) ?? 0;
    const shareB = this.runningByAgent.get(b.agentId) ?? 0;
    if (shareA !== shareB) return shareA < shareB;
    if (timeA !== timeB) return timeA < timeB;
    if (a.queuedAt !== b.queuedAt) return a.queuedAt < b.queuedAt;
    return a.arrival < b.arrival;
  }
}

interface Waiting {
  agentId: number;
  /** The scan's photo key (content hashes), if known. */
  photo: string | undefined;
  queuedAt: number;
  arrival: number;
  grant: () => void;
}
