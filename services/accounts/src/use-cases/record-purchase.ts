import type { Prisma } from '../db';

/**
 * An agent becomes "paid" with its first confirmed credit purchase (billing's payment confirmations, consumed
 * idempotently, so redelivery changes nothing). The first purchase's time is kept.
 */
export async function recordPurchase(tx: Prisma.TransactionClient, purchase: { agentId: number; occurredAt: Date }): Promise<void> {
  await tx.agent.updateMany({ where: { id: purchase.agentId, paidAt: null }, data: { paidAt: purchase.occurredAt } });
}
