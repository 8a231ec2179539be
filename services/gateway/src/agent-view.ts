import { LRUCache } from 'lru-cache';
import { counter } from '@cardlens/telemetry';

const viewReads = counter(
  'cardlens_gateway_agent_view_reads_total',
  "Per-agent reads (view: balance, subscription) the gateway answered from its copy (kept) or asked of billing (billing).",
  ['view', 'source'],
);

/**
 * The gateway's copy of one per-agent billing read (the prepaid balance behind X-Credits-Remaining; the
 * subscription view of GET /v1/subscriptions/me), so a polling agent costs billing one read per change instead of
 * one per request. An entry is dropped (`forget`) when billing announces a change for the agent (BalanceChanged,
 * SubscriptionChanged on the bus, within the outbox relay's delay) and when this gateway finishes one of the
 * agent's own writes. An entry is kept at most `ttlMs`, which bounds how long a lost announcement (a bus outage)
 * can leave it stale, and at most `holdsForMs(value)` when that is positive: the time until billing's clock alone
 * changes the answer (a trial or period ending). A read that was in flight when its agent was forgotten answers
 * its own caller but is not kept, so an answer from before a change never outlives the change's announcement.
 * `ttlMs` 0: no copy, every read asks billing (a gateway without the bus).
 */
export class AgentView<V extends object | number> {
  private readonly cache: LRUCache<number, V> | undefined;
  private readonly inFlight = new Map<number, Promise<V>>();

  constructor(
    private readonly name: 'balance' | 'subscription',
    private readonly read: (agentId: number) => Promise<V>,
    private readonly options: { ttlMs: number; maxEntries: number; holdsForMs?: (value: V) => number },
  ) {
    if (options.ttlMs > 0) this.cache = new LRUCache<number, V>({ max: options.maxEntries, ttl: options.ttlMs });
  }

  get(agentId: number): Promise<V> {
    if (!this.cache) {
      viewReads.inc({ view: this.name, source: 'billing' });
      return this.read(agentId);
    }
    const known = this.cache.get(agentId);
    if (known !== undefined) {
      viewReads.inc({ view: this.name, source: 'kept' });
      return Promise.resolve(known);
    }
    const pending = this.inFlight.get(agentId);
    if (pending) {
      viewReads.inc({ view: this.name, source: 'kept' });
      return pending;
    }
    viewReads.inc({ view: this.name, source: 'billing' });
    const reading: Promise<V> = this.read(agentId).then(
      (value) => {
        if (this.inFlight.get(agentId) === reading) {
          this.inFlight.delete(agentId);
          this.keep(agentId, value);
        }
        return value;
      },
      (error: unknown) => {
        if (this.inFlight.get(agentId) === reading) this.inFlight.delete(agentId);
        throw error;
      },
    );
    this.inFlight.set(agentId, reading);
    return reading;
  }

  forget(agentId: number): void {
    this.cache?.delete(agentId);
    this.inFlight.delete(agentId);
  }

  /** Every agent's answer may have changed (billing's sandbox clock jumped). */
  forgetAll(): void {
    this.cache?.clear();
    this.inFlight.clear();
  }

  private keep(agentId: number, value: V): void {
    const holds = this.options.holdsForMs?.(value) ?? 0;
    const ttl = holds > 0 ? Math.min(holds, this.options.ttlMs) : this.options.ttlMs;
    this.cache?.set(agentId, value, { ttl });
  }
}
