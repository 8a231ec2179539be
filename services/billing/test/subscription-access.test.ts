import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { nextDeadline, subscriptionState, type PeriodFacts, type SubscriptionFacts } from '../src/domain/subscription-access';
import { interpretSubscriptionEvent, isNewerSnapshot, snapshotRank } from '../src/domain/subscription-events';
import { addMonthUtc, DAY_MS } from '../src/clock';

// The spec's "Commercial subscription and trial" state table, row by row, on the pure access rules with
// explicit times (the service's clock is the only clock that decides).

const t0 = new Date(Date.UTC(2027, 0, 31, 10));
const trialEnd = new Date(t0.getTime() + 7 * DAY_MS);
const after = (base: Date, ms: number) => new Date(base.getTime() + ms);

const trialing = (over: Partial<SubscriptionFacts> = {}): SubscriptionFacts => ({
  id: 'sub_1',
  plan: 'grading_5000',
  providerStatus: 'trialing',
  trialStart: t0,
  trialEnd,
  currentPeriodEnd: trialEnd,
  cancelAtPeriodEnd: false,
  endedAt: null,
  cancellationReason: null,
  pendingPlan: null,
  pendingPlanEffectiveAt: null,
  ...over,
});
const period = (start: Date, over: Partial<PeriodFacts> = {}): PeriodFacts => ({
  id: 1n,
  plan: 'grading_5000',
  granted: 5000,
  used: 0,
  reserved: 0,
  periodStart: start,
  periodEnd: addMonthUtc(start),
  paidAt: after(start, 3600_000),
  ...over,
});
const state = (now: Date, subscription: SubscriptionFacts | null, periods: PeriodFacts[] = [], checkoutOpen = false) => subscriptionState({ now, subscription, periods, checkoutOpen });

describe('subscription access (state table)', () => {
  it('no subscription + checkout link: no access and no charge, the trial has not begun', () => {
    expect(state(t0, null)).toMatchObject({ status: 'none', unlimitedGrading: false, gradesRemaining: 0, trialEndsAt: null });
    expect(state(t0, null, [], true)).toMatchObject({ status: 'checkout_pending', unlimitedGrading: false, gradesRemaining: 0, trialEndsAt: null, renewable: false });
  });

  it('checkout completed (new account): unlimited grading for seven days, trialEndsAt set', () => {
    expect(state(after(t0, 1000), trialing())).toMatchObject({ status: 'trialing', unlimitedGrading: true, gradesRemaining: null, trialEndsAt: trialEnd, accessEndsAt: trialEnd });
    expect(state(after(trialEnd, -1), trialing()).unlimitedGrading).toBe(true);
  });

  it('a trial refused after it started (its card had another account\'s trial): no trial access, the paid period once charged', () => {
    const refused = (now: Date, periods: PeriodFacts[] = []) => subscriptionState({ now, subscription: trialing(), periods, checkoutOpen: false, trialRefused: true });
    expect(refused(after(t0, 1000))).toMatchObject({ unlimitedGrading: false, gradesRemaining: 0, status: 'past_due' });
    const charged = period(t0, { paidAt: after(t0, 2000) });
    expect(refused(after(t0, 3000), [charged])).toMatchObject({ status: 'active', unlimitedGrading: false, gradesRemaining: 5000 });
  });

  it('trial deadline passes without a successful payment: access stops at the deadline, whatever the provider still says', () => {
    for (const providerStatus of ['trialing', 'active', 'past_due']) {
      expect(state(trialEnd, trialing({ providerStatus }))).toMatchObject({ status: 'past_due', unlimitedGrading: false, gradesRemaining: 0, accessEndsAt: null });
    }
  });

  it('a delayed confirmation restores access only from when it was processed and never extends the trial', () => {
    const late = period(trialEnd, { paidAt: after(trialEnd, 5 * 3600_000) });
    expect(state(after(trialEnd, 3600_000), trialing({ providerStatus: 'active' }), [late])).toMatchObject({ status: 'past_due', unlimitedGrading: false });
    expect(state(after(trialEnd, 6 * 3600_000), trialing({ providerStatus: 'active' }), [late])).toMatchObject({ status: 'active', unlimitedGrading: false, gradesRemaining: 5000 });
  });

  it('trial deadline passes with a successful payment: the monthly allowance starts', () => {
    const paid = period(trialEnd, { paidAt: trialEnd, used: 10, reserved: 2 });
    expect(state(after(trialEnd, 1000), trialing({ providerStatus: 'active' }), [paid])).toMatchObject({
      status: 'active',
      unlimitedGrading: false,
      gradesRemaining: 4988,
      accessEndsAt: paid.periodEnd,
    });
    const big = period(trialEnd, { paidAt: trialEnd, plan: 'grading_10000', granted: 10000 });
    expect(state(after(trialEnd, 1000), trialing({ providerStatus: 'active', plan: 'grading_10000' }), [big])).toMatchObject({ gradesRemaining: 10000, plan: 'grading_10000' });
  });

  it('cancel in the trial or a paid period: access continues to the deadline, then none', () => {
    const cancelled = trialing({ cancelAtPeriodEnd: true, pendingPlan: 'grading_10000', pendingPlanEffectiveAt: trialEnd });
    expect(state(after(t0, DAY_MS), cancelled)).toMatchObject({ status: 'trialing', unlimitedGrading: true, cancelAtPeriodEnd: true, pendingPlan: null, accessEndsAt: trialEnd });
    expect(state(trialEnd, cancelled)).toMatchObject({ status: 'cancelled', unlimitedGrading: false, gradesRemaining: 0, renewable: false });

    const paid = period(trialEnd, { paidAt: trialEnd });
    const paidCancelled = trialing({ providerStatus: 'active', cancelAtPeriodEnd: true, currentPeriodEnd: paid.periodEnd });
    expect(state(after(paid.periodEnd, -1), paidCancelled, [paid])).toMatchObject({ status: 'active', gradesRemaining: 5000, cancelAtPeriodEnd: true });
    // By our clock, even before the provider's customer.subscription.deleted arrives.
    expect(state(paid.periodEnd, paidCancelled, [paid])).toMatchObject({ status: 'cancelled', gradesRemaining: 0 });
  });

  it('change plan: pending until the next renewal, current allowance unchanged', () => {
    const paid = period(trialEnd, { paidAt: trialEnd, used: 100 });
    const s = trialing({ providerStatus: 'active', pendingPlan: 'grading_10000', pendingPlanEffectiveAt: paid.periodEnd });
    expect(state(after(trialEnd, DAY_MS), s, [paid])).toMatchObject({ plan: 'grading_5000', gradesRemaining: 4900, pendingPlan: 'grading_10000', pendingPlanEffectiveAt: paid.periodEnd });
    const next = period(paid.periodEnd, { id: 2n, plan: 'grading_10000', granted: 10000, paidAt: paid.periodEnd });
    expect(state(after(paid.periodEnd, 1000), { ...s, plan: 'grading_10000', pendingPlan: null }, [paid, next])).toMatchObject({ plan: 'grading_10000', gradesRemaining: 10000 });
  });

  it('period ends: unused grades expire, no rollover', () => {
    const first = period(trialEnd, { paidAt: trialEnd, used: 1200 });
    const second = period(first.periodEnd, { id: 2n, paidAt: first.periodEnd });
    const s = trialing({ providerStatus: 'active' });
    expect(state(after(first.periodEnd, -1), s, [first, second]).gradesRemaining).toBe(3800);
    expect(state(first.periodEnd, s, [first, second]).gradesRemaining).toBe(5000);
    // Not renewed: nothing left at all.
    expect(state(first.periodEnd, s, [first])).toMatchObject({ status: 'past_due', gradesRemaining: 0 });
  });

  it('ended subscriptions: cancelled on request, expired when payment failed; a new checkout reads checkout_pending', () => {
    const ended = (reason: string) => trialing({ providerStatus: 'canceled', endedAt: trialEnd, cancellationReason: reason });
    expect(state(after(trialEnd, 1), ended('cancellation_requested')).status).toBe('cancelled');
    expect(state(after(trialEnd, 1), ended('payment_failed')).status).toBe('expired');
    expect(state(after(trialEnd, 1), ended('payment_failed'), [], true).status).toBe('checkout_pending');
  });
});

describe('subscription event ordering', () => {
  it('a newer provider event wins; within one second the further lifecycle state wins', () => {
    const second = new Date(Date.UTC(2027, 0, 1));
    const created = snapshotRank({ status: 'trialing', cancelAtPeriodEnd: false });
    const cancelledLater = snapshotRank({ status: 'trialing', cancelAtPeriodEnd: true });
    const deleted = snapshotRank({ status: 'canceled', cancelAtPeriodEnd: false });
    expect(isNewerSnapshot({ version: second, rank: created }, { version: second, rank: deleted })).toBe(false);
    expect(isNewerSnapshot({ version: second, rank: cancelledLater }, { version: second, rank: created })).toBe(true);
    expect(isNewerSnapshot({ version: after(second, 1000), rank: created }, { version: second, rank: deleted })).toBe(true);
    expect(isNewerSnapshot({ version: second, rank: created }, null)).toBe(true);
  });

  it('ignores events of other environments and non-CardLens subscriptions', () => {
    const object = { id: 'sub_x', object: 'subscription', status: 'active', metadata: { purchase_kind: 'subscription', agent_id: '7', environment: 'production' }, items: { data: [] }, created: 1 };
    const event = { id: 'evt_x', type: 'customer.subscription.updated', created: new Date(), object };
    expect(interpretSubscriptionEvent(event, 'local')).toMatchObject({ kind: 'ignored' });
    expect(interpretSubscriptionEvent(event, 'production')).toMatchObject({ kind: 'snapshot', agentId: 7 });
    expect(interpretSubscriptionEvent({ ...event, object: { ...object, metadata: {} } }, 'production')).toMatchObject({ kind: 'ignored' });
  });
});

describe('nextDeadline (how long a derived state holds without a write)', () => {
  // Times are whole hours around t0, so random facts often share, straddle and coincide with deadlines.
  const hour = fc.integer({ min: -24 * 40, max: 24 * 40 }).map((h) => after(t0, h * 3600_000));
  const maybeHour = fc.option(hour, { nil: null });
  const facts = fc.record({
    plan: fc.constantFrom('grading_5000', 'grading_10000'),
    providerStatus: fc.constantFrom('trialing', 'active', 'past_due', 'canceled', 'incomplete_expired', 'incomplete'),
    trialStart: maybeHour,
    trialEnd: maybeHour,
    currentPeriodEnd: maybeHour,
    cancelAtPeriodEnd: fc.boolean(),
    endedAt: maybeHour,
    cancellationReason: fc.constantFrom(null, 'cancellation_requested', 'payment_failed', 'payment_disputed'),
    pendingPlan: fc.constantFrom(null, 'grading_10000'),
    pendingPlanEffectiveAt: maybeHour,
  }).map((f): SubscriptionFacts => ({ id: 'sub_p', ...f }));
  const periodArb = fc.record({ start: hour, days: fc.integer({ min: 1, max: 31 }), paidAfterH: fc.integer({ min: -2, max: 48 }), used: fc.nat(5), reserved: fc.nat(5) }).map(
    ({ start, days, paidAfterH, used, reserved }, ): PeriodFacts => ({ id: 1n, plan: 'grading_5000', granted: 10, used, reserved, periodStart: start, periodEnd: after(start, days * DAY_MS), paidAt: after(start, paidAfterH * 3600_000) }),
  );

  it('the state read at `now` is the state at every instant before nextDeadline (property)', () => {
    fc.assert(
      fc.property(fc.option(facts, { nil: null }), fc.array(periodArb, { maxLength: 3 }), maybeHour, hour, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 4 }), (subscription, periods, checkoutExpiresAt, now, fractions) => {
        const at = (t: Date) => subscriptionState({ now: t, subscription, periods, checkoutOpen: checkoutExpiresAt !== null && checkoutExpiresAt > t });
        const read = at(now);
        const deadline = nextDeadline({ now, subscription, periods, checkoutExpiresAt: checkoutExpiresAt !== null && checkoutExpiresAt > now ? checkoutExpiresAt : null });
        if (deadline) expect(deadline.getTime()).toBeGreaterThan(now.getTime());
        // Without a deadline ahead the state holds for good; sample up to 90 days out.
        const horizon = deadline ? deadline.getTime() - now.getTime() - 1 : 90 * DAY_MS;
        for (const f of [...fractions, 1]) expect(at(after(now, Math.floor(f * horizon)))).toEqual(read);
      }),
      { numRuns: 3000 },
    );
  });

  it('a trial holds until its end; an active period until its end or an earlier scheduled change', () => {
    expect(nextDeadline({ now: after(t0, 1000), subscription: trialing(), periods: [], checkoutExpiresAt: null })).toEqual(trialEnd);
    const paid = period(trialEnd);
    const change = after(trialEnd, 10 * DAY_MS);
    expect(nextDeadline({ now: after(trialEnd, 2 * 3600_000), subscription: trialing({ providerStatus: 'active', currentPeriodEnd: paid.periodEnd }), periods: [paid], checkoutExpiresAt: null })).toEqual(paid.periodEnd);
    expect(nextDeadline({ now: after(trialEnd, 2 * 3600_000), subscription: trialing({ providerStatus: 'active', pendingPlan: 'grading_10000', pendingPlanEffectiveAt: change }), periods: [paid], checkoutExpiresAt: null })).toEqual(change);
    expect(nextDeadline({ now: t0, subscription: null, periods: [], checkoutExpiresAt: null })).toBeNull();
  });
});

