import { AppError } from '@cardlens/errors';
import type { SubscriptionEvent } from '../domain/subscription-events';
import { PaymentProviderError } from '../payments/provider';
import type { PurchaseDeps } from './purchase-deps';

/** The subscription whose trial an event says has started (or runs), if any. */
function trialOf(meaning: SubscriptionEvent): { agentId: number; subscriptionId: string } | null {
  if (meaning.kind === 'checkout_completed' && meaning.trialDays > 0) return { agentId: meaning.agentId, subscriptionId: meaning.subscriptionId };
  if (meaning.kind === 'snapshot' && meaning.subscription.status === 'trialing') return { agentId: meaning.agentId, subscriptionId: meaning.subscription.id };
  return null;
}

/**
 * One trial per card: before an event that starts a trial is recorded, billing learns the fingerprint of the
 * subscription's card and claims it on the account's trial row (unique). When another account's trial holds
 * it, the trial is refused: the refusal is stored (the account gets no trial access) and the provider ends
 * the trial at once, which charges the plan now. Runs outside any transaction, before the event is recorded,
 * so a provider failure fails the webhook (redelivered, nothing recorded) and a redelivery repeats only what
 * is missing (the fingerprint is learned once; ending a trial that already ended does nothing).
 */
export async function checkTrialCard(deps: PurchaseDeps, meaning: SubscriptionEvent): Promise<void> {
  const trial = trialOf(meaning);
  if (!trial) return;
  const { agentId, subscriptionId } = trial;
  const row = await deps.prisma.trialUse.findUnique({ where: { agentId } });
  if (!row?.refusedAt) {
    if (row?.cardFingerprint) return;
    const fingerprint = await deps.provider.retrieveCardFingerprint(subscriptionId).catch(unavailable);
    // No card payment method known: nothing to compare with (the trial stands).
    if (!fingerprint) return;
    if (await claimFingerprint(deps, agentId, subscriptionId, fingerprint)) return;
    deps.logger.info({ agentId, subscriptionId }, "trial refused: its card already had another account's trial; ending it at the provider");
  }
  await deps.provider.endTrialNow({ subscriptionId, idempotencyKey: `end-refused-trial:${subscriptionId}` }).catch(unavailable);
}

/** True when the fingerprint is now (or already was) this account's; false when it refused the trial. */
async function claimFingerprint(deps: PurchaseDeps, agentId: number, subscriptionId: string, fingerprint: string, attempt = 0): Promise<boolean> {
  try {
    await deps.prisma.trialUse.upsert({
      where: { agentId },
      create: { agentId, subscriptionId, cardFingerprint: fingerprint },
      update: { cardFingerprint: fingerprint },
    });
    return true;
  } catch (error) {
    if ((error as { code?: string }).code !== 'P2002') throw error;
  }
  const holder = await deps.prisma.trialUse.findUnique({ where: { cardFingerprint: fingerprint } });
  // Lost the race for its own row's creation (a concurrent event of the same account): claimed all the same.
  if ((!holder || holder.agentId === agentId) && attempt < 2) return claimFingerprint(deps, agentId, subscriptionId, fingerprint, attempt + 1);
  if (!holder || holder.agentId === agentId) throw new AppError('billing_unavailable', 'The trial card could not be recorded; the event will be redelivered.');
  const now = deps.clock.now();
  await deps.prisma.trialUse.upsert({
    where: { agentId },
    create: { agentId, subscriptionId, refusal: 'same_card', refusedAt: now },
    update: { refusal: 'same_card', refusedAt: now },
  });
  return false;
}

function unavailable(error: unknown): never {
  if (error instanceof PaymentProviderError) {
    throw new AppError('billing_unavailable', 'The payment provider is unavailable; the event is not recorded and will be redelivered.', { cause: error });
  }
  throw error;
}
