import { AppError } from '@cardlens/errors';
import type { PrismaClient } from '../db';
import { appendEntry, retryOnIdempotencyRace, type AppendedEntry } from '../domain/ledger';

/** Refunds one debit in full, at most once (refund_of_id is unique); a repeat returns the first refund. */
export async function refundCredits(
  deps: { prisma: PrismaClient },
  request: { agentId: number; debitEntryId: bigint; reason: string },
): Promise<AppendedEntry> {
  return retryOnIdempotencyRace(() =>
  deps.prisma.$transaction(async (tx) => {
    const debit = await tx.ledgerEntry.findUnique({ where: { id: request.debitEntryId } });
    if (!debit || debit.agentId !== request.agentId || debit.kind !== 'debit') {
      throw new AppError('not_found', 'No such debit for this agent.');
    }
    return appendEntry(tx, {
      agentId: request.agentId,
      kind: 'refund',
      amount: -debit.amount,
      causeType: 'refund',
      causeId: request.reason.slice(0, 128),
      idempotencyKey: `refund:${debit.id}`,
      refundOfId: debit.id,
    });
  }),
  );
}
