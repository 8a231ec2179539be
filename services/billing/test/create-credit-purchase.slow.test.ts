import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@cardlens/telemetry';
import { DAY_MS, FakeClock } from '../src/clock';
import { defaultPricing } from '../src/domain/pricing';
import { createSandboxProvider } from '../src/payments/sandbox-provider';
import { createCreditPurchase } from '../src/use-cases/create-credit-purchase';
import type { PurchaseDeps } from '../src/use-cases/purchase-deps';
import { migratedPglite, testPurchaseDeps, type MigratedPglite } from './purchase-fixture';

// The checkout rail's session rules on PGlite with the sandbox provider: one open session per agent and pack,
// handed out again while it has time left; one about to expire is retired and replaced; concurrent requests
// share one session; prices are fixed per session.
describe('createCreditPurchase', () => {
  let open: MigratedPglite;
  const depsWith = (overrides: Partial<PurchaseDeps>): PurchaseDeps => {
    const logger = createLogger('t', { write: () => {} });
    const provider = createSandboxProvider({ prisma: open.prisma, webhookSecret: 'whsec_unit', webhookUrl: 'http://127.0.0.1:9/none', publicBaseUrl: 'http://127.0.0.1:8080', logger });
    return testPurchaseDeps(open.prisma, provider, { logger, ...overrides });
  };

  beforeAll(async () => {
    open = await migratedPglite();
  }, 60_000);
  afterAll(async () => {
    await open?.close();
  });

  it('hands the open session out again, per pack', async () => {
    const deps = depsWith({});
    const first = await createCreditPurchase(deps, { agentId: 1, pack: 'starter' });
    expect(first.reused).toBe(false);
    expect(await createCreditPurchase(deps, { agentId: 1, pack: 'starter' })).toMatchObject({ checkoutUrl: first.checkoutUrl, reused: true });
    expect((await createCreditPurchase(deps, { agentId: 1, pack: 'scale' })).checkoutUrl).not.toBe(first.checkoutUrl);
    expect((await createCreditPurchase(deps, { agentId: 2, pack: 'starter' })).checkoutUrl).not.toBe(first.checkoutUrl);
  });

  it('retires a session about to expire and creates a new one', async () => {
    const shortLived = depsWith({ checkoutTtlMs: 30_000 }); // inside the one-minute reuse margin
    const first = await createCreditPurchase(shortLived, { agentId: 3, pack: 'starter' });
    const second = await createCreditPurchase(shortLived, { agentId: 3, pack: 'starter' });
    expect(second.checkoutUrl).not.toBe(first.checkoutUrl);
    const rows = await open.prisma.checkoutSession.findMany({ where: { agentId: 3 }, orderBy: { createdAt: 'asc' } });
    expect(rows.map((r) => [r.state, r.openSlot])).toEqual([['expired', null], ['open', '3:starter']]);
  });

  it('concurrent requests for one pack make one session', async () => {
    const deps = depsWith({});
    const offers = await Promise.all(Array.from({ length: 8 }, () => createCreditPurchase(deps, { agentId: 4, pack: 'builder' })));
    expect(new Set(offers.map((o) => o.checkoutUrl)).size).toBe(1);
    expect(await open.prisma.checkoutSession.count({ where: { agentId: 4 } })).toBe(1);
  });

  it('offers follow the price list: an open session at an old price is expired and replaced (issue 49)', async () => {
    const deps = depsWith({});
    const before = await createCreditPurchase(deps, { agentId: 5, pack: 'starter' });
    expect(before).toMatchObject({ credits: 25, priceCents: 500 });
    const repriced = { ...defaultPricing, packs: defaultPricing.packs.map((p) => (p.key === 'starter' ? { ...p, credits: 30, priceCents: 700 } : p)) };
    const again = await createCreditPurchase(depsWith({ pricing: repriced }), { agentId: 5, pack: 'starter' });
    expect(again).toMatchObject({ credits: 30, priceCents: 700, reused: false });
    expect(again.checkoutUrl).not.toBe(before.checkoutUrl);
    // The old page can no longer be paid: expired at the provider, and our row freed its slot.
    const oldId = before.checkoutUrl.split('/').pop()!;
    expect((await deps.provider.retrieveCheckoutSession(oldId))?.status).toBe('expired');
    const rows = await open.prisma.checkoutSession.findMany({ where: { agentId: 5 }, orderBy: { createdAt: 'asc' } });
    expect(rows.map((r) => [r.state, r.credits, r.priceCents])).toEqual([['expired', 25, 500], ['open', 30, 700]]);
    // Asked again at the new list: the new session is handed out again.
    expect(await createCreditPurchase(depsWith({ pricing: repriced }), { agentId: 5, pack: 'starter' })).toMatchObject({ checkoutUrl: again.checkoutUrl, reused: true });
  });

  // Issue 49: billing's clock (the sandbox's, moved by days) and replicas' clocks differing by more than the
  // crash threshold made live twins look crashed: 19 of 20 concurrent purchases failed, and subscription
  // checkouts opened one session each.
  it('concurrent requests share one session when billing\'s clock is moved by days', async () => {
    const moved = depsWith({ clock: new FakeClock(new Date(Date.now() + 30 * DAY_MS)) });
    const offers = await Promise.all(Array.from({ length: 20 }, () => createCreditPurchase(moved, { agentId: 8, pack: 'builder' })));
    expect(new Set(offers.map((o) => o.checkoutUrl)).size).toBe(1);
    expect(await open.prisma.checkoutSession.count({ where: { agentId: 8 } })).toBe(1);
  });

  it('concurrent requests through replicas whose clocks differ by three minutes share one session', async () => {
    const ahead = depsWith({ clock: new FakeClock(new Date(Date.now() + 90_000)) });
    const behind = depsWith({ clock: new FakeClock(new Date(Date.now() - 90_000)) });
    const offers = await Promise.all(Array.from({ length: 20 }, (_, i) => createCreditPurchase(i % 2 ? ahead : behind, { agentId: 9, pack: 'scale' })));
    expect(new Set(offers.map((o) => o.checkoutUrl)).size).toBe(1);
    expect(await open.prisma.checkoutSession.count({ where: { agentId: 9 } })).toBe(1);
  });

  it('takes over a creation left by a crash once it is a minute old on the database clock', async () => {
    const deps = depsWith({ clock: new FakeClock(new Date(Date.now() - 3600_000)) }); // billing's clock far behind: ignored here
    await open.prisma.checkoutSession.create({
      data: { id: '0f0f0f0f-0000-4000-8000-000000000010', agentId: 10, pack: 'starter', credits: 25, priceCents: 500, currency: 'USD', provider: 'sandbox', state: 'creating', openSlot: '10:starter', expiresAt: new Date(Date.now() + 3600_000) },
    });
    await open.prisma.$executeRawUnsafe(`UPDATE billing.checkout_sessions SET created_at = now() - interval '2 minutes' WHERE agent_id = 10`);
    const offer = await createCreditPurchase(deps, { agentId: 10, pack: 'starter' });
    expect(offer.reused).toBe(false);
    expect(await open.prisma.checkoutSession.findMany({ where: { agentId: 10 }, select: { state: true } })).toEqual([{ state: 'open' }]);
  });

  it('refuses an unknown or missing pack with the valid keys', async () => {
    await expect(createCreditPurchase(depsWith({}), { agentId: 7, pack: 'mega' })).rejects.toMatchObject({ code: 'invalid_pack', message: expect.stringContaining('starter, builder, scale') });
    await expect(createCreditPurchase(depsWith({}), { agentId: 7, pack: '' })).rejects.toMatchObject({ code: 'invalid_pack' });
  });
});
