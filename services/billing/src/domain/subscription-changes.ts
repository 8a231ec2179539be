import { enqueueOutbox } from '@cardlens/bus';
import { events, timestampFromDate } from '@cardlens/contracts';
import type { Prisma } from '../db';
import { BILLING_BUS_TABLES } from './bus-tables';

/**
 * Announces, in the caller's transaction, that what GET /v1/subscriptions/me shows of an agent may have changed
 * (SubscriptionChanged through billing's outbox), so the gateway drops its copy. Every write to a subscription,
 * an allowance period's counters, a subscription checkout or a scheduled plan change calls it; announcing a
 * write that changed nothing visible only costs the gateway one read. 'every-agent' is for the sandbox clock:
 * when it moves, every agent's derived status (trial, period, checkout deadlines) may differ.
 */
export async function announceSubscriptionChange(tx: Prisma.TransactionClient, who: number | 'every-agent'): Promise<void> {
  const everyAgent = who === 'every-agent';
  await enqueueOutbox(tx, BILLING_BUS_TABLES.outbox, {
    topic: events.subscriptionChanged.topic,
    key: everyAgent ? 'every-agent' : String(who),
    value: events.subscriptionChanged.encode({ agentId: everyAgent ? 0 : who, everyAgent, changedAt: timestampFromDate(new Date()) }),
  });
}
