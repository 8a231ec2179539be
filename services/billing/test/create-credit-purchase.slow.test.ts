import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDatabase, migrate, openPrisma, serviceLayout, type Database, type OpenPrisma } from '@cardlens/db';
import { createLogger } from '@cardlens/telemetry';
import { PrismaClient } from '../src/db';
import { systemClock } from '../src/clock';
import { defaultPricing } from '../src/domain/pricing';
import { createSandboxProvider } from '../src/payments/sandbox-provider';
import { billingServiceDir } from '../src/service';
import { createCreditPurchase } from '../src/use-cases/create-credit-purchase';
import type { PurchaseDeps } from '../src/use-cases/purchase-deps';

// The checkout rail's session rules on PGlite with the sandbox provider: one open session per agent and pack,
// handed out again while it has time left; one about to expire is retired and replaced; concurrent requests
// share one session; prices are fixed per session.
describe('createCreditPurchase', () => {
  let database: Database;
  let open: OpenPrisma<PrismaClient>;
  const depsWith = (overrides: Partial<PurchaseDeps>): PurchaseDeps => {
    const prisma = open.prisma;
    const logger = createLogger('t', { write: () => {} });
    return {
      prisma,
      clock: systemClock,
      logger,
      pricing: defaultPricing,
      provider: createSandboxProvider({ prisma, webhookSecret: 'whsec_unit', webhookUrl: 'http://127.0.0.1:9/none', publicBaseUrl: 'http://127.0.0.1:8080', logger }),
      environment: 'unit',
      publicBaseUrl: 'http://127.0.0.1:8080',
      checkoutTtlMs: 24 * 3600_000 - 120_000,
      sharedPaymentTokensEnabled: false,
      nudgeOutbox: () => {},
      ...overrides,
    };
  };

  beforeAll(async () => {
    database = await createDatabase({ kind: 'pglite', dataDir: 'memory://' });
    await migrate({ ...serviceLayout(billingServiceDir), database });
    open = await openPrisma(PrismaClient, database);
  }, 60_000);
  afterAll(async () => {
    await open?.close();
    await database?.close();
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

  it('sells at the price of the moment: a later price change does not touch an open session', async () => {
    const before = await createCreditPurchase(depsWith({}), { agentId: 5, pack: 'starter' });
    const repriced = { ...defaultPricing, packs: defaultPricing.packs.map((p) => (p.key === 'starter' ? { ...p, credits: 30, priceCents: 600 } : p)) };
    const again = await createCreditPurchase(depsWith({ pricing: repriced }), { agentId: 5, pack: 'starter' });
    expect(again).toMatchObject({ checkoutUrl: before.checkoutUrl, credits: 25, priceCents: 500 });
    const other = await createCreditPurchase(depsWith({ pricing: repriced }), { agentId: 6, pack: 'starter' });
    expect(other).toMatchObject({ credits: 30, priceCents: 600 });
  });

  it('refuses an unknown or missing pack with the valid keys', async () => {
    await expect(createCreditPurchase(depsWith({}), { agentId: 7, pack: 'mega' })).rejects.toMatchObject({ code: 'invalid_pack', message: expect.stringContaining('starter, builder, scale') });
    await expect(createCreditPurchase(depsWith({}), { agentId: 7, pack: '' })).rejects.toMatchObject({ code: 'invalid_pack' });
  });
});
