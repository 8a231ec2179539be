import { AppError } from '@cardlens/errors';
import type { PrismaClient } from '../db';
import { appendEntry, retryOnIdempotencyRace, type AppendedEntry } from '../domain/ledger';

/** Debit-first charging: the caller (e.g. scans) debits before doing the work and refunds if it cannot. */
export async function debitCredits(
  deps: { prisma: PrismaClient },
  request: { agentId: number; amount: number; causeType: string; causeId: string; idempotencyKey: string },
): Promise<AppendedEntry> {
  if (!Number.isInteger(request.amount) || request.amount <= 0) throw new AppError('invalid_body', 'Debit amount must be a positive integer.');
  return retryOnIdempotencyRace(() =>
    deps.prisma.$transaction((tx) =>
      appendEntry(tx, {
        agentId: request.agentId,
        kind: 'debit',
        amount: -request.amount,
        causeType: request.causeType,
        causeId: request.causeId,
        idempotencyKey: `debit:${request.idempotencyKey}`,
      }),
    ),
  );
}
