import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDatabase, migrate, openPrisma, serviceLayout, type Database } from '@cardlens/db';
import { isAppError } from '@cardlens/errors';
import { createLogger } from '@cardlens/telemetry';
import { createTestDatabase, describeWithInfra, type TestDatabase } from '@cardlens/testing';
import { DAY_MS, FakeClock } from '../src/clock';
import { PrismaClient } from '../src/db';
import { defaultPricing, type Pricing } from '../src/domain/pricing';
import { PaymentProviderError, type PaymentProvider } from '../src/payments/provider';
import { createSandboxProvider } from '../src/payments/sandbox-provider';
import { applySnapshot } from '../src/use-cases/apply-subscription-event';
import { checkPriceAnnouncements } from '../src/use-cases/check-price-announcements';
import { createSubscriptionCheckout } from '../src/use-cases/create-subscription-checkout';
import type { PurchaseDeps } from '../src/use-cases/purchase-deps';

// Subscription checkout rules on the sandbox provider: one unfinished checkout per account (concurrent requests
// share it), one trial per account under the trial_uses key (released only if the checkout expires unused),
// no trial for a returning subscriber, nothing left behind when the provider fails; and the 14-day notice
// rule for plan price changes.

const serviceDir = fileURLToPath(new URL('..', import.meta.url));
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
  const request = (agentId: number, plan = 'grading_5000') => ({ agentId, plan, contactEmail: 'owner@example.com' });

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
        customerId: 'cus_r',
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

describe('subscription checkout on PGlite', () => {
  let database: Database;
  let prisma: PrismaClient;
  let close: () => Promise<void>;
  beforeAll(async () => {
    database = await createDatabase({ kind: 'pglite', dataDir: 'memory://' });
    await migrate({ ...serviceLayout(serviceDir), database });
    ({ prisma, close } = await openPrisma(PrismaClient, database));
  });
  afterAll(async () => {
    await close();
    await database.close();
  });
  checkoutRules(() => prisma);
});

describeWithInfra('postgres', 'subscription checkout on Postgres', () => {
  let db: TestDatabase | undefined;
  let prisma: PrismaClient | undefined;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    db = await createTestDatabase({ label: 'billing_subscription_checkout' });
    await migrate({ ...serviceLayout(serviceDir), database: { kind: 'postgres', url: db.url } });
    const open = await openPrisma(PrismaClient, { kind: 'postgres', url: db.url, poolSize: 10 });
    prisma = open.prisma;
    close = open.close;
  });
  afterAll(async () => {
    await close?.();
    await db?.drop();
  });
  checkoutRules(() => prisma!);
});
