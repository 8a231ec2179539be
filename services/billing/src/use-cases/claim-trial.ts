import type { TrialUse } from '../db';
import { ownerKeyOf, type TrialRefusalReason } from '../domain/trial-owner';
import type { PurchaseDeps } from './purchase-deps';

export interface TrialClaim {
  granted: boolean;
  /** Set when the trial is refused because the owner already had one on another account. */
  refusal: TrialRefusalReason | null;
}

const NO_TRIAL: TrialClaim = { granted: false, refusal: null };
const ATTEMPTS = 3;

/**
 * One trial per account (trial_uses' primary key) and per person (its unique owner key, from the contact
 * email): claimed by this checkout when neither had a trial, or taken over from an earlier checkout that ended
 * without starting it. A claim that started, or whose checkout is still open and unexpired, holds both. The
 * unique keys decide races: a lost one is evaluated again.
 */
export async function claimTrial(deps: PurchaseDeps, agentId: number, checkoutId: string, email: string): Promise<TrialClaim> {
  const ownerKey = ownerKeyOf(email);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const [own, keyHolder] = await Promise.all([
      deps.prisma.trialUse.findUnique({ where: { agentId } }),
      deps.prisma.trialUse.findUnique({ where: { ownerKey } }),
    ]);
    if (own && (own.startedAt || (await claimHeld(deps, own)))) return NO_TRIAL;
    if (keyHolder && keyHolder.agentId !== agentId) {
      if (keyHolder.startedAt || (await claimHeld(deps, keyHolder))) return { granted: false, refusal: 'same_owner' };
      // Another account's checkout ended unused: its claim no longer holds the person's trial.
      await deps.prisma.trialUse.deleteMany({ where: { agentId: keyHolder.agentId, checkoutId: keyHolder.checkoutId, startedAt: null } });
    }
    try {
      if (!own) {
        await deps.prisma.trialUse.create({ data: { agentId, checkoutId, ownerKey } });
        return { granted: true, refusal: null };
      }
      const { count } = await deps.prisma.trialUse.updateMany({
        where: { agentId, checkoutId: own.checkoutId, startedAt: null },
        data: { checkoutId, ownerKey, claimedAt: deps.clock.now() },
      });
      if (count === 1) return { granted: true, refusal: null };
    } catch (error) {
      // A concurrent claim took the account or the owner key first: look again.
      if ((error as { code?: string }).code !== 'P2002') throw error;
    }
  }
  return NO_TRIAL;
}

/** Whether an unstarted claim still holds: its checkout is not expired by state or by our clock. */
async function claimHeld(deps: PurchaseDeps, claim: TrialUse): Promise<boolean> {
  const holder = claim.checkoutId ? await deps.prisma.subscriptionCheckout.findUnique({ where: { id: claim.checkoutId } }) : null;
  return holder !== null && holder.state !== 'expired' && holder.expiresAt > deps.clock.now();
}
