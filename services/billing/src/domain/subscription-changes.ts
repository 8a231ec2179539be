import { busTables, enqueueOutbox } from '@cardlens/bus';
import { events, timestampFromDate } from '@cardlens/contracts';
import type { Prisma } from '../db';

const OUTBOX = busTables('billing').outbox;

/**
 * Announces, in the caller's transaction, that what GET /v1/subscriptions/me shows of an agent may have changed
 * (SubscriptionChanged through billing's outbox), so the gateway drops its copy. Every write to a subscription,
 * an allowance period's counters, a subscription checkout or a scheduled plan change calls it; announcing a
 * write that changed nothing visible only costs the gateway one read.
 */
export async function announceSubscriptionChange(tx: Prisma.TransactionClient, agentId: number): Promise<void> {
  await enqueueOutbox(tx, OUTBOX, {
    topic: events.subscriptionChanged.topic,
    key: String(agentId),
    value: events.subscriptionChanged.encode({ agentId, everyAgent: false, changedAt: timestampFromDate(new Date()) }),
  });
}

/** The sandbox clock moved: every agent's derived status (trial, period, checkout deadlines) may differ. */
export async function announceEveryAgentsSubscriptionChange(tx: Prisma.TransactionClient): Promise<void> {
  await enqueueOutbox(tx, OUTBOX, {
    topic: events.subscriptionChanged.topic,
    key: 'every-agent',
    value: events.subscriptionChanged.encode({ agentId: 0, everyAgent: true, changedAt: timestampFromDate(new Date()) }),
  });
}
