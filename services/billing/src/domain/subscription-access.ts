/**
 * Grading access and the subscription status an agent sees, derived with billing's clock from what the
 * provider reported (the subscription row) and what was paid (allowance periods). Pure, so every rule of the
 * spec's "Commercial subscription and trial" table is decided here and tested with a fake clock:
 * - the trial gives unlimited grading from checkout completion until trialEnd, by our clock, whatever the
 *   provider's status says and however late its events arrive; a refused trial (one per person) gives none;
 * - a paid period gives its allowance from the moment its payment was processed until its end (a late
 *   confirmation restores access from then on and never extends the trial);
 * - a cancellation takes effect at the trial or period end; an ended subscription gives nothing.
 */

export type SubscriptionStatus = 'none' | 'checkout_pending' | 'trialing' | 'active' | 'past_due' | 'cancelled' | 'expired';

export interface SubscriptionFacts {
  id: string;
  plan: string | null;
  providerStatus: string;
  trialStart: Date | null;
  trialEnd: Date | null;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  endedAt: Date | null;
  cancellationReason: string | null;
  pendingPlan: string | null;
  pendingPlanEffectiveAt: Date | null;
}

export interface PeriodFacts {
  id: bigint;
  plan: string;
  granted: number;
  used: number;
  reserved: number;
  periodStart: Date;
  periodEnd: Date;
  paidAt: Date;
}

export interface SubscriptionState {
  status: SubscriptionStatus;
  plan: string | null;
  /** Unlimited trial grading right now. */
  unlimitedGrading: boolean;
  trialEndsAt: Date | null;
  /** The paid period granting access right now. */
  period: PeriodFacts | null;
  /** null in the trial (unlimited); 0 without access. */
  gradesRemaining: number | null;
  /** When access ends unless a payment renews it; null without access. */
  accessEndsAt: Date | null;
  cancelAtPeriodEnd: boolean;
  pendingPlan: string | null;
  pendingPlanEffectiveAt: Date | null;
  /** A trial or paid subscription that renews or can still be cancelled (not ended). */
  renewable: boolean;
}

const ENDED_PROVIDER_STATUSES = new Set(['canceled', 'incomplete_expired']);

/** The period whose grades can be used at `now`: paid (processed) by now, started, not over, not cut by an end. */
export function currentPeriod(periods: readonly PeriodFacts[], now: Date, endedAt: Date | null): PeriodFacts | null {
  const t = now.getTime();
  let best: PeriodFacts | null = null;
  for (const p of periods) {
    const end = endedAt && endedAt < p.periodEnd ? endedAt.getTime() : p.periodEnd.getTime();
    if (p.periodStart.getTime() <= t && p.paidAt.getTime() <= t && t < end && (!best || p.periodStart > best.periodStart)) best = p;
  }
  return best;
}

/** The trial or period deadline for a cancellation at period end (or the provider's period end). */
function renewalDeadline(s: SubscriptionFacts, period: PeriodFacts | null, now: Date): Date | null {
  if (s.trialEnd && now < s.trialEnd) return s.trialEnd;
  return period?.periodEnd ?? s.currentPeriodEnd ?? s.trialEnd;
}

export function subscriptionState(input: {
  now: Date;
  subscription: SubscriptionFacts | null;
  periods: readonly PeriodFacts[];
  /** An unfinished subscription checkout exists. */
  checkoutOpen: boolean;
  /** The account's trial was refused after it started (its card had another account's trial): no trial access. */
  trialRefused?: boolean;
}): SubscriptionState {
  const { now, subscription: s, checkoutOpen } = input;
  const nothing: SubscriptionState = {
    status: checkoutOpen ? 'checkout_pending' : 'none',
    plan: null,
    unlimitedGrading: false,
    trialEndsAt: null,
    period: null,
    gradesRemaining: 0,
    accessEndsAt: null,
    cancelAtPeriodEnd: false,
    pendingPlan: null,
    pendingPlanEffectiveAt: null,
    renewable: false,
  };
  if (!s) return nothing;

  const period = currentPeriod(input.periods, now, s.endedAt);
  const deadline = renewalDeadline(s, period, now);
  const ended =
    ENDED_PROVIDER_STATUSES.has(s.providerStatus) ||
    (s.endedAt !== null && s.endedAt <= now) ||
    // By our clock: a cancellation at period end has taken effect even if the provider's event is late.
    (s.cancelAtPeriodEnd && deadline !== null && deadline <= now);
  if (ended) {
    const byPayment = s.cancellationReason === 'payment_failed' || s.cancellationReason === 'payment_disputed' || s.providerStatus === 'incomplete_expired';
    const status: SubscriptionStatus = checkoutOpen ? 'checkout_pending' : byPayment || (!s.cancelAtPeriodEnd && s.cancellationReason !== 'cancellation_requested') ? 'expired' : 'cancelled';
    return { ...nothing, status, plan: s.plan, trialEndsAt: s.trialEnd };
  }

  const base = {
    plan: s.plan,
    trialEndsAt: s.trialEnd,
    cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    pendingPlan: s.cancelAtPeriodEnd ? null : s.pendingPlan,
    pendingPlanEffectiveAt: s.cancelAtPeriodEnd ? null : s.pendingPlanEffectiveAt,
    renewable: true,
  };
  const inTrial = !input.trialRefused && s.trialEnd !== null && now < s.trialEnd && (s.trialStart === null || s.trialStart <= now);
  if (inTrial) {
    return { ...base, status: 'trialing', unlimitedGrading: true, period: null, gradesRemaining: null, accessEndsAt: s.trialEnd };
  }
  if (period) {
    return {
      ...base,
      status: 'active',
      plan: period.plan,
      unlimitedGrading: false,
      period,
      gradesRemaining: Math.max(0, period.granted - period.used - period.reserved),
      accessEndsAt: s.endedAt && s.endedAt < period.periodEnd ? s.endedAt : period.periodEnd,
    };
  }
  // The trial deadline or a renewal passed without a confirmed payment: no access until one is confirmed.
  return { ...base, status: 'past_due', unlimitedGrading: false, period: null, gradesRemaining: 0, accessEndsAt: null };
}

/**
 * The next instant after `now` at which subscriptionState could answer differently with no row written: the
 * earliest future timestamp among those it compares with the clock (trial, period, payment, end and plan-change
 * times, an open checkout's expiry). null when none lies ahead. A reader may keep a derived answer until then.
 */
export function nextDeadline(input: { now: Date; subscription: SubscriptionFacts | null; periods: readonly PeriodFacts[]; checkoutExpiresAt: Date | null }): Date | null {
  const { now, subscription: s } = input;
  const candidates: (Date | null)[] = [input.checkoutExpiresAt];
  if (s) candidates.push(s.trialStart, s.trialEnd, s.currentPeriodEnd, s.endedAt, s.pendingPlanEffectiveAt);
  for (const p of input.periods) candidates.push(p.periodStart, p.periodEnd, p.paidAt);
  let next: Date | null = null;
  for (const at of candidates) if (at && at > now && (!next || at < next)) next = at;
  return next;
}
