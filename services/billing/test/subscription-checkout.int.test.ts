import { randomUUID } from 'node:crypto';
import { expect, it } from '@jest/globals';
import { isAppError } from '@cardlens/errors';
import { createLogger } from '@cardlens/telemetry';
import { describeOnPgliteAndPostgres } from '@cardlens/testing';
import { DAY_MS, FakeClock } from '../src/clock';
import { PrismaClient } from '../src/db';
import { defaultPricing, type Pricing } from '../src/domain/pricing';
import { PaymentProviderError, type PaymentProvider } from '../src/payments/provider';
import { createSandboxProvider } from '../src/payments/sandbox-provider';
import { applySnapshot } from '../src/use-cases/apply-subscription-event';
import { checkPriceAnnouncements } from '../src/use-cases/check-price-announcements';
import { createSubscriptionCheckout } from '../src/use-cases/create-subscription-checkout';
import type { PurchaseDeps } from '../src/use-cases/purchase-deps';
import { createdLongAgo } from '../src/use-cases/stale-creation';
import { openBillingDatabase } from './purchase-fixture';

// Subscription checkout rules on the sandbox provider: one unfinished checkout per account (concurrent requests
// share it), one trial per account under the trial_uses key (released only if the checkout expires unused),
// no trial for a returning subscriber, nothing left behind when the provider fails; and the 14-day notice
// rule for plan price changes.

const logger = createLogger('subscription-checkout-test', { write: () => {} });

function checkoutRules(prismaOf: () => PrismaClient) {
  let nextAgent = 1;
  const depsWith = (over: Partial<PurchaseDeps> = {}): PurchaseDeps => {
    const prisma = prismaOf();
    const sandbox = createSandboxProvider({ prisma, webhookSecret: 'whsec_unit', webhookUrl: 'http://127.0.0.1:9/none', publicBaseUrl: 'http://127.0.0.1:8080', logger, deliveryAttempts: 1 });
    return {
      prisma,
      pricing: defaultPricing,
      provider: sandbox,
      clock: sandbox.clock,
      logger,
      environment: 'unit',
      publicBaseUrl: 'http://127.0.0.1:8080',
      checkoutTtlMs: 24 * 3600_000 - 120_000,
      sharedPaymentTokensEnabled: false,
      nudgeOutbox: () => {},
      ...over,
    };
  };
  // One owner per account: trials are one per person too (one-trial-per-person.int.test.ts).
  const request = (agentId: number, plan = 'grading_5000') => ({ agentId, plan, contactEmail: `owner${agentId}@example.com` });

  it('concurrent checkouts of one account share one session and claim the trial once', async () => {
    const deps = depsWith();
    const agentId = nextAgent++;
    const results = await Promise.all(Array.from({ length: 6 }, () => createSubscriptionCheckout(deps, request(agentId))));
    const urls = new Set(results.map((r) => (r.kind === 'checkout' ? r.checkoutUrl : '')));
    expect(urls.size).toBe(1);
    expect(results.every((r) => r.kind === 'checkout' && r.trialDays === 7)).toBe(true);
    expect(await deps.prisma.subscriptionCheckout.count({ where: { agentId } })).toBe(1);
    expect(await deps.prisma.trialUse.count({ where: { agentId } })).toBe(1);
    // Another plan while it is open: 409 checkout_pending.
    await expect(createSubscriptionCheckout(deps, request(agentId, 'grading_10000'))).rejects.toMatchObject({ code: 'checkout_pending' });
  });

  // Issue 49: with the sandbox clock moved, or replicas' clocks over a minute apart, live twins looked crashed
  // and 10 concurrent checkouts opened 10 sessions for one account.
  it('concurrent checkouts share one session under a moved clock and under clock skew', async () => {
    const moved = depsWith({ clock: new FakeClock(new Date(Date.now() + 30 * DAY_MS)) });
    const movedAgent = nextAgent++;
    const movedResults = await Promise.all(Array.from({ length: 10 }, () => createSubscriptionCheckout(moved, { agentId: movedAgent, plan: 'grading_5000', contactEmail: `moved-${movedAgent}@example.com` })));
    expect(new Set(movedResults.map((r) => (r.kind === 'checkout' ? r.checkoutUrl : ''))).size).toBe(1);
    expect(await moved.prisma.subscriptionCheckout.count({ where: { agentId: movedAgent } })).toBe(1);

    const ahead = depsWith({ clock: new FakeClock(new Date(Date.now() + 90_000)) });
    const behind = depsWith({ clock: new FakeClock(new Date(Date.now() - 90_000)) });
    const skewAgent = nextAgent++;
    const skewResults = await Promise.all(
      Array.from({ length: 10 }, (_, i) => createSubscriptionCheckout(i % 2 ? ahead : behind, { agentId: skewAgent, plan: 'grading_5000', contactEmail: `skew-${skewAgent}@example.com` })),
    );
    expect(new Set(skewResults.map((r) => (r.kind === 'checkout' ? r.checkoutUrl : ''))).size).toBe(1);
    expect(await ahead.prisma.subscriptionCheckout.count({ where: { agentId: skewAgent } })).toBe(1);
  });

  it('a checkout row is dated by the database whatever clock its writer has', async () => {
    const prisma = prismaOf();
    const agentId = nextAgent++;
    const id = randomUUID();
    // A replica whose clock is an hour behind (Prisma sends the client's time for now() defaults).
    await prisma.subscriptionCheckout.create({
      data: { id, agentId, plan: 'grading_5000', priceCents: 25000, trialDays: 0, provider: 'sandbox', state: 'creating', openSlot: String(agentId), expiresAt: new Date(Date.now() + 3600_000), createdAt: new Date(Date.now() - 3600_000) },
    });
    const [row] = await prisma.$queryRawUnsafe<{ age_seconds: number }[]>(`SELECT extract(epoch FROM now() - created_at)::float8 AS age_seconds FROM billing.subscription_checkouts WHERE id = $1::uuid`, id);
    expect(Math.abs(row!.age_seconds)).toBeLessThan(30);
    expect(await createdLongAgo(prisma, 'subscription_checkouts', id)).toBe(false);
    await prisma.subscriptionCheckout.delete({ where: { id } });
  });

  it('an open checkout at a plan price the list no longer has is expired at the provider and replaced', async () => {
    const deps = depsWith();
    const agentId = nextAgent++;
    const email = `reprice-${agentId}@example.com`;
    const first = await createSubscriptionCheckout(deps, { agentId, plan: 'grading_5000', contactEmail: email });
    const base = defaultPricing.plans.find((p) => p.key === 'grading_5000')!;
    const repriced: Pricing = {
      ...defaultPricing,
      plans: defaultPricing.plans.map((p) => (p.key === 'grading_5000' ? { ...p, priceChange: { priceCents: base.priceCents + 2500, effectiveAt: new Date(Date.now() - 1000).toISOString() } } : p)),
    };
    const second = await createSubscriptionCheckout(depsWith({ pricing: repriced }), { agentId, plan: 'grading_5000', contactEmail: email });
    if (first.kind !== 'checkout' || second.kind !== 'checkout') throw new Error('expected checkouts');
    expect(second.checkoutUrl).not.toBe(first.checkoutUrl);
    expect((await deps.provider.retrieveCheckoutSession(first.checkoutUrl.split('/').pop()!))?.status).toBe('expired');
    const rows = await deps.prisma.subscriptionCheckout.findMany({ where: { agentId }, orderBy: { createdAt: 'asc' } });
    expect(rows.map((r) => [r.state, r.priceCents])).toEqual([['expired', base.priceCents], ['open', base.priceCents + 2500]]);
    // The trial the first checkout claimed went to its replacement.
    expect(second.trialDays).toBe(first.trialDays);
  });

  it('a checkout that expired unused gives the trial back; a returning subscriber gets none', async () => {
    const clock = new FakeClock();
    const deps = depsWith({ clock });
    const agentId = nextAgent++;
    const first = await createSubscriptionCheckout(deps, request(agentId));
    expect(first).toMatchObject({ kind: 'checkout', trialDays: 7 });
    clock.advance(DAY_MS + 60_000);
    const second = await createSubscriptionCheckout(deps, request(agentId));
    expect(second).toMatchObject({ kind: 'checkout', trialDays: 7 });
    expect(second.kind === 'checkout' && first.kind === 'checkout' && second.checkoutUrl !== first.checkoutUrl).toBe(true);
    expect(await deps.prisma.trialUse.count({ where: { agentId } })).toBe(1);

    // The account had a subscription (ended): no second trial.
    const returning = nextAgent++;
    await deps.prisma.$transaction((tx) =>
      applySnapshot(tx, returning, {
        id: `sub_returning_${returning}`,
        customerId: null,
        status: 'canceled',
        priceId: null,
        metadata: {},
        trialStart: null,
        trialEnd: null,
        currentPeriodStart: null,
        currentPeriodEnd: null,
        cancelAtPeriodEnd: false,
        canceledAt: clock.now(),
        endedAt: clock.now(),
        cancellationReason: 'cancellation_requested',
        scheduleId: null,
        created: new Date(clock.now().getTime() - 40 * DAY_MS),
      }, clock.now(), 'grading_5000'),
    );
    expect(await createSubscriptionCheckout(deps, request(returning))).toMatchObject({ kind: 'checkout', trialDays: 0 });
  });

  it('a provider failure answers billing_unavailable and leaves no checkout or trial claim behind', async () => {
    const base = depsWith();
    const failing: PaymentProvider = {
      ...base.provider,
      createSubscriptionCheckout: () => Promise.reject(new PaymentProviderError('unavailable', 'outage')),
    };
    const deps = depsWith({ provider: failing });
    const agentId = nextAgent++;
    const error = await createSubscriptionCheckout(deps, request(agentId)).catch((e: unknown) => e);
    expect(isAppError(error) && error.code).toBe('billing_unavailable');
    expect(await deps.prisma.subscriptionCheckout.count({ where: { agentId } })).toBe(0);
    expect(await deps.prisma.trialUse.count({ where: { agentId } })).toBe(0);
    // Recovery: the next request gets the trial.
    expect(await createSubscriptionCheckout(base, request(agentId))).toMatchObject({ kind: 'checkout', trialDays: 7 });
  });

  it('a plan price change needs 14 days of notice from when billing first ran with it; a restart keeps the announcement', async () => {
    const clock = new FakeClock(new Date(Date.UTC(2031, 5, 1)));
    const withChange = (days: number, cents = 27500): Pricing => ({
      ...defaultPricing,
      plans: defaultPricing.plans.map((p) => (p.key === 'grading_5000' ? { ...p, priceChange: { priceCents: cents, effectiveAt: new Date(clock.now().getTime() + days * DAY_MS).toISOString() } } : p)),
    });
    const prisma = prismaOf();
    await expect(checkPriceAnnouncements({ prisma, pricing: withChange(10), clock })).rejects.toThrow(/at least 14/);
    const announced = withChange(20);
    await checkPriceAnnouncements({ prisma, pricing: announced, clock });
    clock.advance(15 * DAY_MS);
    await checkPriceAnnouncements({ prisma, pricing: announced, clock });
    // A new change seen now for 5 days later is refused.
    await expect(checkPriceAnnouncements({ prisma, pricing: withChange(5, 29900), clock })).rejects.toThrow(/grading_5000/);
  });
}

describeOnPgliteAndPostgres('subscription checkout', { label: 'billing_subscription_checkout', open: openBillingDatabase }, checkoutRules);
