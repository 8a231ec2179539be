import { AppError } from '@cardlens/errors';
import type { PrismaClient } from '../db';
import { appendEntry, retryOnIdempotencyRace, type AppendedEntry } from '../domain/ledger';

/**
 * Refunds one debit, in full or the given part of it (a scan's grade that could not be given), at most once
 * (refund_of_id is unique); a repeat returns the first refund.
 */
export async function refundCredits(
  deps: { prisma: PrismaClient },
  request: { agentId: number; debitEntryId: bigint; reason: string; credits?: number },
): Promise<AppendedEntry> {
  if (request.credits !== undefined && !(Number.isInteger(request.credits) && request.credits > 0)) {
    throw new AppError('invalid_body', 'A partial refund is a positive whole number of credits.');
  }
  return retryOnIdempotencyRace(() =>
  deps.prisma.$transaction(async (tx) => {
    const debit = await tx.ledgerEntry.findUnique({ where: { id: request.debitEntryId } });
    if (!debit || debit.agentId !== request.agentId || debit.kind !== 'debit') {
      throw new AppError('not_found', 'No such debit for this agent.');
    }
    return appendEntry(tx, {
      agentId: request.agentId,
      kind: 'refund',
      // A debit's amount is negative; a part is never more than the whole.
      amount: request.credits === undefined ? -debit.amount : Math.min(request.credits, -debit.amount),
      causeType: 'refund',
      causeId: request.reason.slice(0, 128),
      idempotencyKey: `refund:${debit.id}`,
      refundOfId: debit.id,
    });
  }),
  );
}
