import { LRUCache } from 'lru-cache';
import { counter } from '@cardlens/telemetry';

const balanceReads = counter('cardlens_gateway_balance_reads_total', 'Balances the gateway reported on reads: from its copy (kept) or asked of billing (billing).', ['source']);

/**
 * The gateway's copy of agents' prepaid balances, for the X-Credits-Remaining of reads: a polling agent costs
 * billing one balance read per change instead of one per request. An entry is dropped (`forget`) when billing
 * announces a ledger entry for the agent (BalanceChanged on the bus, within the outbox relay's delay) and when
 * this gateway finishes one of the agent's own writes; `ttlMs` bounds how long a lost announcement (a bus outage)
 * can leave an entry stale. A read that was in flight when its agent was forgotten answers its own caller but is
 * not kept, so an answer from before a change never outlives the change's announcement. `ttlMs` 0: no copy,
 * every read asks billing (a gateway without the bus).
 */
export class BalanceView {
  private readonly cache: LRUCache<number, number> | undefined;
  private readonly inFlight = new Map<number, Promise<number>>();

  constructor(
    private readonly read: (agentId: number) => Promise<number>,
    options: { ttlMs: number; maxEntries: number },
  ) {
    if (options.ttlMs > 0) this.cache = new LRUCache<number, number>({ max: options.maxEntries, ttl: options.ttlMs });
  }

  get(agentId: number): Promise<number> {
    if (!this.cache) {
      balanceReads.inc({ source: 'billing' });
      return this.read(agentId);
    }
    const known = this.cache.get(agentId);
    if (known !== undefined) {
      balanceReads.inc({ source: 'kept' });
      return Promise.resolve(known);
    }
    const pending = this.inFlight.get(agentId);
    if (pending) {
      balanceReads.inc({ source: 'kept' });
      return pending;
    }
    balanceReads.inc({ source: 'billing' });
    const reading: Promise<number> = this.read(agentId).then(
      (credits) => {
        if (this.inFlight.get(agentId) === reading) {
          this.inFlight.delete(agentId);
          this.cache?.set(agentId, credits);
        }
        return credits;
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
}
