/**
 * Turns on the vision engine for one scan worker's jobs. The worker takes several jobs of each bus partition at
 * once (the bus's keyConcurrency), so every waiting scan is here rather than behind its partition's earlier ones
 * while another partition's later scans go first; at most `slots` analyses are sent to the engine at once (as many
 * as it runs side by side: more would only queue there, where a wait counts against the call's deadline).
 *
 * Who goes next when a slot frees: fair shares between accounts first, then first come, first served. The next
 * turn goes to the account with the fewest analyses on the engine now; among those, to the scan queued earliest
 * (then the job that arrived first). One account's burst (or a flood of photos that take the engine long) thus
 * takes at most its share of the slots while other accounts wait, and with one account waiting it is plain FCFS.
 */
export class EngineTurns {
  /** Analyses on the engine now, in all and per account. */
  private running = 0;
  private readonly runningByAgent = new Map<number, number>();
  private readonly waiting: Waiting[] = [];
  private arrivals = 0;

  constructor(
    private readonly slots: number,
    /** How often a waiting job's heartbeat is called (well under Kafka's 6-30 s session timeout). */
    private readonly heartbeatMs = 3000,
  ) {}

  get stats(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /**
   * Resolves with this scan's turn once it is next (see the class) and a slot is free; the turn must be released
   * (release() may be called more than once). While waiting it calls `heartbeat` every few seconds (a Kafka
   * consumer's liveness); when `signal` aborts (the worker stops) it stops waiting and throws.
   */
  async take(scan: { agentId: number; queuedAt: Date }, options: { signal?: AbortSignal; heartbeat?: () => Promise<void> } = {}): Promise<{ release(): void }> {
    const { signal, heartbeat } = options;
    if (signal?.aborted) throw new Error('the scan worker is stopping');
    if (this.running < this.slots && this.waiting.length === 0) return this.granted(scan.agentId);
    const entry: Waiting = { agentId: scan.agentId, queuedAt: scan.queuedAt.getTime(), arrival: this.arrivals++, grant: () => {} };
    let beat: NodeJS.Timeout | undefined;
    let onAbort = () => {};
    try {
      await new Promise<void>((resolve, reject) => {
        entry.grant = resolve;
        this.waiting.push(entry);
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
    return this.granted(scan.agentId, true);
  }

  /** A turn; `handedOver` when a release passed its slot on (then it is counted already, in all and for its account). */
  private granted(agentId: number, handedOver = false): { release(): void } {
    if (!handedOver) {
      this.running++;
      this.count(agentId, +1);
    }
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.count(agentId, -1);
        // The slot goes straight to the next waiter, counted for its account at once (a second release in the
        // same tick must see it), so no later arrival can take it in between.
        const next = this.next();
        if (next) {
          this.count(next.agentId, +1);
          next.grant();
        } else {
          this.running--;
        }
      },
    };
  }

  private count(agentId: number, delta: number): void {
    const now = (this.runningByAgent.get(agentId) ?? 0) + delta;
    if (now === 0) this.runningByAgent.delete(agentId);
    else this.runningByAgent.set(agentId, now);
  }

  /** Removes and returns the waiter to serve next: fewest analyses of its account running, then queued earliest. */
  private next(): Waiting | undefined {
    let best = -1;
    for (let i = 0; i < this.waiting.length; i++) {
      if (best < 0 || this.before(this.waiting[i]!, this.waiting[best]!)) best = i;
    }
    return best < 0 ? undefined : this.waiting.splice(best, 1)[0];
  }

  private before(a: Waiting, b: Waiting): boolean {
    const shareA = this.runningByAgent.get(a.agentId) ?? 0;
    const shareB = this.runningByAgent.get(b.agentId) ?? 0;
    if (shareA !== shareB) return shareA < shareB;
    if (a.queuedAt !== b.queuedAt) return a.queuedAt < b.queuedAt;
    return a.arrival < b.arrival;
  }
}

interface Waiting {
  agentId: number;
  queuedAt: number;
  arrival: number;
  grant: () => void;
}
