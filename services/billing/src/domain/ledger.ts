import { enqueueOutbox } from '@cardlens/bus';
import { events, timestampFromDate } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import type { Prisma } from '../db';
import { BILLING_BUS_TABLES } from './bus-tables';

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
 * Locks the agent's balance row (creating it at 0 when new) for the rest of the transaction and returns the
 * balance. Every effect on one agent takes this lock first, so they run one after the other and each one's
 * idempotency check sees whatever a concurrent twin committed before it.
 */
export async function lockAccount(tx: Tx, agentId: number): Promise<number> {
  await tx.$executeRaw`INSERT INTO "billing"."credit_accounts" ("agent_id", "balance", "updated_at") VALUES (${agentId}::int, 0, now()) ON CONFLICT ("agent_id") DO NOTHING`;
  const locked = await tx.$queryRaw<{ balance: number }[]>`SELECT "balance" FROM "billing"."credit_accounts" WHERE "agent_id" = ${agentId}::int FOR UPDATE`;
  return locked[0]?.balance ?? 0;
}

/**
 * The only way the balance moves: one ledger row, one balance update and, when the amount is not zero, a
 * BalanceChanged event in the outbox, all in the caller's transaction. It refuses to go below zero (the CHECK
 * constraint is the backstop), and the unique idempotency key makes a retried effect a no-op that returns the
 * original entry.
 */
export async function appendEntry(tx: Tx, entry: EntryRequest): Promise<AppendedEntry> {
  const balance = await lockAccount(tx, entry.agentId);

  const existing = await tx.ledgerEntry.findUnique({ where: { idempotencyKey: entry.idempotencyKey } });
  if (existing) return { entryId: existing.id, balanceAfter: existing.balanceAfter, replayed: true, amount: existing.amount };

  if (balance + entry.amount < 0) {
    throw new AppError('insufficient_credits', `This request costs ${-entry.amount} credits; the balance is ${balance}.`, {
      extras: { creditsRemaining: balance, purchaseUrl: '/v1/credits/packs' },
    });
  }
  // The CHECK constraint (balance >= 0) is the backstop should this arithmetic ever be wrong.
  const updated = await tx.$queryRaw<{ balance: number }[]>`
    UPDATE "billing"."credit_accounts"
       SET "balance" = "balance" + ${entry.amount}::int, "updated_at" = now(),
           "has_purchased" = "has_purchased" OR ${entry.kind === 'purchase'}::boolean
     WHERE "agent_id" = ${entry.agentId}::int
     RETURNING "balance"`;
  const balanceAfter = updated[0]?.balance ?? balance + entry.amount;
  const created = await tx.ledgerEntry.create({
    data: {
      agentId: entry.agentId,
      kind: entry.kind,
      amount: entry.amount,
      balanceAfter,
      causeType: entry.causeType,
      causeId: entry.causeId,
      idempotencyKey: entry.idempotencyKey,
      refundOfId: entry.refundOfId ?? null,
    },
  });
  if (entry.amount !== 0) {
    await enqueueOutbox(tx, BILLING_BUS_TABLES.outbox, {
      topic: events.balanceChanged.topic,
      key: String(entry.agentId),
      value: events.balanceChanged.encode({ agentId: entry.agentId, credits: balanceAfter, ledgerEntryId: Number(created.id), changedAt: timestampFromDate(created.createdAt) }),
    });
  }
  return { entryId: created.id, balanceAfter, replayed: false, amount: entry.amount };
}

/**
 * Runs a ledger transaction; if it lost a race on a unique idempotency key (Prisma P2002), runs it once more,
 * which then finds the winner's entry and reports it as a replay instead of failing.
 */
export async function retryOnIdempotencyRace<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if ((error as { code?: string } | null)?.code === 'P2002') return run();
    throw error;
  }
}
