import { AppError } from '@cardlens/errors';
import type { Prisma } from '../db';

type Tx = Prisma.TransactionClient;

export type EntryKind = 'grant' | 'debit' | 'refund' | 'purchase';

export interface EntryRequest {
  agentId: number;
  kind: EntryKind;
  /** Signed: negative for debits. */
  amount: number;
  causeType: string;
  causeId: string;
  idempotencyKey: string;
  refundOfId?: bigint;
}

export interface AppendedEntry {
  entryId: bigint;
  balanceAfter: number;
  /** True when the idempotency key had already been applied; nothing changed. */
  replayed: boolean;
  amount: number;
}

/**
 * The only way the balance moves: one ledger row and one balance update in the caller's transaction.
 * The conditional UPDATE refuses to go below zero (the CHECK constraint is the backstop), and the unique
 * idempotency key makes a retried effect a no-op that returns the original entry.
 */
export async function appendEntry(tx: Tx, entry: EntryRequest): Promise<AppendedEntry> {
  const existing = await tx.ledgerEntry.findUnique({ where: { idempotencyKey: entry.idempotencyKey } });
  if (existing) return { entryId: existing.id, balanceAfter: existing.balanceAfter, replayed: true, amount: existing.amount };

  await tx.$executeRaw`INSERT INTO "billing"."credit_accounts" ("agent_id", "balance", "updated_at") VALUES (${entry.agentId}, 0, now()) ON CONFLICT ("agent_id") DO NOTHING`;
  const updated = await tx.$queryRaw<{ balance: number }[]>`
    UPDATE "billing"."credit_accounts"
       SET "balance" = "balance" + ${entry.amount}, "updated_at" = now(),
           "has_purchased" = "has_purchased" OR ${entry.kind === 'purchase'}
     WHERE "agent_id" = ${entry.agentId} AND "balance" + ${entry.amount} >= 0
     RETURNING "balance"`;
  const row = updated[0];
  if (!row) {
    const account = await tx.creditAccount.findUnique({ where: { agentId: entry.agentId } });
    const balance = account?.balance ?? 0;
    throw new AppError('insufficient_credits', `This request costs ${-entry.amount} credits; the balance is ${balance}.`, {
      extras: { creditsRemaining: balance, purchaseUrl: '/v1/credits/packs' },
    });
  }
  const created = await tx.ledgerEntry.create({
    data: {
      agentId: entry.agentId,
      kind: entry.kind,
      amount: entry.amount,
      balanceAfter: row.balance,
      causeType: entry.causeType,
      causeId: entry.causeId,
      idempotencyKey: entry.idempotencyKey,
      refundOfId: entry.refundOfId ?? null,
    },
  });
  return { entryId: created.id, balanceAfter: row.balance, replayed: false, amount: entry.amount };
}
