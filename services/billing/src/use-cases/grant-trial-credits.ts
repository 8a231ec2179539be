import type { PrismaClient } from '../db';
import type { Pricing } from '../domain/pricing';
import { appendEntry, lockAccount } from '../domain/ledger';

export interface TrialGrantResult {
  creditsGranted: number;
  poolExhausted: boolean;
}

/**
 * Grants an agent its trial credits out of the global daily pool (UTC day). All or nothing: when the pool
 * cannot cover the whole grant, the agent gets 0 and the caller tells it how to buy credits. Retrying for the
 * same agent returns the first answer without taking from the pool again.
 */
export async function grantTrialCredits(
  deps: { prisma: PrismaClient; pricing: Pricing; dailyPoolCredits: number; now?: () => Date },
  request: { agentId: number; tier: 'anonymous' | 'registered'; commercialOnly: boolean },
): Promise<TrialGrantResult> {
  if (request.commercialOnly) return { creditsGranted: 0, poolExhausted: false };
  const amount = deps.pricing.trial[request.tier];
  if (amount === 0) return { creditsGranted: 0, poolExhausted: false };
  const idempotencyKey = `trial:${request.agentId}`;
  const day = utcDay((deps.now ?? (() => new Date()))());

  return deps.prisma.$transaction(async (tx) => {
    // The agent's lock before the "already answered?" checks: a concurrent retry waits here and then sees the
    // first call's entry, instead of taking from the pool a second time.
    await lockAccount(tx, request.agentId);
    const previous = await tx.ledgerEntry.findUnique({ where: { idempotencyKey } });
    if (previous) return { creditsGranted: previous.amount, poolExhausted: false };
    const outcomeKey = `trial-pool-refused:${request.agentId}`;
    const refused = await tx.ledgerEntry.findUnique({ where: { idempotencyKey: outcomeKey } });
    if (refused) return { creditsGranted: 0, poolExhausted: true };

    // Row-locked conditional increment (parameters cast: untyped they would compare as text): concurrent registrations can never overdraw the pool.
    const taken = await tx.$executeRaw`
      INSERT INTO "billing"."trial_pool_days" ("day", "granted")
      SELECT ${day}::date, ${amount}::int WHERE ${amount}::int <= ${deps.dailyPoolCredits}::int
      ON CONFLICT ("day") DO UPDATE SET "granted" = "trial_pool_days"."granted" + ${amount}::int
       WHERE "trial_pool_days"."granted" + ${amount}::int <= ${deps.dailyPoolCredits}::int`;
    if (taken === 0) {
      // Record the refusal (a zero entry) so the ledger explains why this agent started with nothing.
      await appendEntry(tx, { agentId: request.agentId, kind: 'grant', amount: 0, causeType: 'trial_pool_exhausted', causeId: day, idempotencyKey: outcomeKey });
      return { creditsGranted: 0, poolExhausted: true };
    }
    await appendEntry(tx, { agentId: request.agentId, kind: 'grant', amount, causeType: 'trial', causeId: `${request.tier}:${day}`, idempotencyKey });
    return { creditsGranted: amount, poolExhausted: false };
  });
}

function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}
