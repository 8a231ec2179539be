import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { events } from '@cardlens/contracts';
import { createDatabase, migrate, openPrisma, serviceLayout, type Database, type OpenPrisma } from '@cardlens/db';
import { createLogger } from '@cardlens/telemetry';
import { PrismaClient } from '../src/db';
import { paymentConfirmationHandler } from '../src/events/payment-confirmations';
import { appendEntry } from '../src/domain/ledger';
import { systemClock } from '../src/clock';
import { defaultPricing } from '../src/domain/pricing';
import { createSandboxProvider, type SandboxProvider } from '../src/payments/sandbox-provider';
import { billingServiceDir } from '../src/service';
import { createCreditPurchase } from '../src/use-cases/create-credit-purchase';
import type { PurchaseDeps } from '../src/use-cases/purchase-deps';
import { reconcilePurchases, unresolvedMismatches } from '../src/use-cases/reconcile-purchases';

// Reconciliation on PGlite with the sandbox provider during a "webhook outage": its deliveries go to a closed
// port, so a payment is made at the provider and never reaches us until the repair feeds its event.

const ENVIRONMENT = 'reconcile-test';
const CONFIRMATION_TOPIC = events.paymentConfirmationReceived.topic;

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('reconcilePurchases', () => {
  let database: Database;
  let open: OpenPrisma<PrismaClient>;
  let prisma: PrismaClient;
  let sandbox: SandboxProvider;
  let deps: PurchaseDeps;
  const since = new Date(Date.now() - 60 * 60 * 1000);

  beforeAll(async () => {
    database = await createDatabase({ kind: 'pglite', dataDir: 'memory://' });
    await migrate({ ...serviceLayout(billingServiceDir), database });
    open = await openPrisma(PrismaClient, database);
    prisma = open.prisma;
    const logger = createLogger('reconcile-test', { write: () => {} });
    sandbox = createSandboxProvider({
      prisma,
      webhookSecret: 'whsec_reconcile_test',
      webhookUrl: `http://127.0.0.1:${await closedPort()}/v1/webhooks/stripe`,
      publicBaseUrl: 'http://127.0.0.1:8080',
      logger,
      deliveryAttempts: 1,
    });
    deps = {
      prisma,
      clock: systemClock,
      logger,
      pricing: defaultPricing,
      provider: sandbox,
      environment: ENVIRONMENT,
      publicBaseUrl: 'http://127.0.0.1:8080',
      checkoutTtlMs: 60 * 60 * 1000,
      sharedPaymentTokensEnabled: false,
      nudgeOutbox: () => {},
    };
  }, 60_000);

  afterAll(async () => {
    await open?.close();
    await database?.close();
  });

  beforeEach(async () => {
    await prisma.$executeRawUnsafe(
      'TRUNCATE "billing"."ledger_entries", "billing"."credit_accounts", "billing"."checkout_sessions", "billing"."payment_events", "billing"."sandbox_objects", "billing"."outbox", "billing"."processed_messages"',
    );
  });

  /** A starter pack bought through the checkout rail and paid at the sandbox; the webhook never arrives. */
  const paidDuringOutage = async (agentId: number): Promise<string> => {
    const offer = await createCreditPurchase(deps, { agentId, pack: 'starter' });
    const sessionId = offer.checkoutUrl.split('/').at(-1)!;
    await sandbox.pay(sessionId);
    return sessionId;
  };
  const outboxRows = () => prisma.outboxMessage.findMany({ where: { topic: CONFIRMATION_TOPIC }, orderBy: { createdAt: 'asc' } });

  /** Billing's confirmation consumer (its real handler) on each outbox row, as if the relay had published it. */
  const consumeConfirmations = async () => {
    const consume = paymentConfirmationHandler(prisma, { pricing: defaultPricing, clock: systemClock, logger: createLogger('reconcile-test', { write: () => {} }) });
    for (const row of await outboxRows()) {
      await consume({ id: row.id, topic: row.topic, key: row.key, value: Buffer.from(row.payload), headers: {}, attempt: 1, signal: new AbortController().signal, heartbeat: async () => {} });
    }
  };

  it('finds a payment the webhook never delivered, repairs it through the ingestion path, and then agrees', async () => {
    const sessionId = await paidDuringOutage(501);
    expect(await prisma.paymentEvent.count()).toBe(0);

    const found = await reconcilePurchases(deps, { since, repair: false });
    expect(found).toMatchObject({ provider: 'sandbox', providerPaid: 1, ledgerPurchases: 0, repaired: [], unrepairable: [] });
    expect(found.mismatches).toEqual([
      { kind: 'paid_not_granted', id: sessionId, agentId: 501, pack: 'starter', credits: 25, amountCents: 500, detail: expect.stringContaining('no confirmation recorded') },
    ]);
    expect(unresolvedMismatches(found)).toHaveLength(1);
    expect(await outboxRows()).toHaveLength(0);

    const repaired = await reconcilePurchases(deps, { since, repair: true });
    expect(repaired.repaired).toEqual([sessionId]);
    expect(unresolvedMismatches(repaired)).toEqual([]);
    const recorded = await prisma.paymentEvent.findMany();
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ source: 'repair', type: 'checkout.session.completed', checkoutSessionId: sessionId, confirmsPayment: true });
    const rows = await outboxRows();
    expect(rows).toHaveLength(1);
    expect(events.paymentConfirmationReceived.decode(rows[0]!.payload)).toMatchObject({ agentId: 501, credits: 25, checkoutSessionId: sessionId });

    // Before the consumer has run, a second repair finds the event recorded and writes nothing more.
    const pending = await reconcilePurchases(deps, { since, repair: true });
    expect(pending).toMatchObject({ repaired: [], alreadyIngested: [sessionId] });
    expect(pending.mismatches[0]?.detail).toContain('(repair) was recorded');
    expect(unresolvedMismatches(pending)).toHaveLength(1);
    expect(await outboxRows()).toHaveLength(1);

    await consumeConfirmations();
    expect((await prisma.creditAccount.findUnique({ where: { agentId: 501 } }))?.balance).toBe(25);

    const clean = await reconcilePurchases(deps, { since, repair: false });
    expect(clean).toMatchObject({ providerPaid: 1, ledgerPurchases: 1, mismatches: [] });
    const again = await reconcilePurchases(deps, { since, repair: true });
    expect(again).toMatchObject({ mismatches: [], repaired: [], alreadyIngested: [], unrepairable: [] });
    expect(await prisma.paymentEvent.count()).toBe(1);
    expect(await outboxRows()).toHaveLength(1);
  });

  it('reports a paid purchase whose event the provider no longer keeps as unrepairable, and grants nothing', async () => {
    const sessionId = await paidDuringOutage(502);
    await prisma.sandboxObject.deleteMany({ where: { type: 'event' } });
    const report = await reconcilePurchases(deps, { since, repair: true });
    expect(report.repaired).toEqual([]);
    expect(report.unrepairable).toEqual([{ id: sessionId, reason: expect.stringContaining('30 days') }]);
    expect(unresolvedMismatches(report)).toHaveLength(1);
    expect(await prisma.paymentEvent.count()).toBe(0);
    expect(await outboxRows()).toHaveLength(0);
  });

  it('reports credits granted for a session the provider never saw paid, and for an unknown payment intent', async () => {
    const offer = await createCreditPurchase(deps, { agentId: 503, pack: 'builder' });
    const sessionId = offer.checkoutUrl.split('/').at(-1)!;
    await prisma.$transaction(async (tx) => {
      await appendEntry(tx, { agentId: 503, kind: 'purchase', amount: 120, causeType: 'checkout_session', causeId: sessionId, idempotencyKey: `purchase:${sessionId}` });
      await appendEntry(tx, { agentId: 503, kind: 'purchase', amount: 25, causeType: 'payment_intent', causeId: 'pi_unknown', idempotencyKey: 'purchase:pi_unknown' });
    });
    const report = await reconcilePurchases(deps, { since, repair: true });
    expect(report).toMatchObject({ providerPaid: 0, ledgerPurchases: 2, repaired: [], unrepairable: [] });
    expect(report.mismatches).toEqual([
      { kind: 'granted_not_paid', id: sessionId, agentId: 503, pack: 'builder', credits: 120, amountCents: 1900, detail: 'the provider reports the checkout session open, payment unpaid' },
      { kind: 'granted_not_paid', id: 'pi_unknown', agentId: 503, pack: null, credits: 25, amountCents: null, detail: expect.stringContaining('payment intents') },
    ]);
    expect(unresolvedMismatches(report)).toHaveLength(2);
  });

  it('reports a grant that differs from the credits sold', async () => {
    const sessionId = await paidDuringOutage(504);
    await prisma.$transaction((tx) =>
      appendEntry(tx, { agentId: 504, kind: 'purchase', amount: 30, causeType: 'checkout_session', causeId: sessionId, idempotencyKey: `purchase:${sessionId}` }),
    );
    const report = await reconcilePurchases(deps, { since, repair: false });
    expect(report.mismatches).toEqual([{ kind: 'amount_mismatch', id: sessionId, agentId: 504, pack: 'starter', credits: 25, amountCents: 500, detail: 'granted 30 credits, the payment\'s metadata says 25' }]);
  });

  it('leaves out other environments, unpaid sessions and purchases outside the window', async () => {
    await createCreditPurchase(deps, { agentId: 505, pack: 'starter' }); // open, unpaid
    await paidDuringOutage(506);
    const otherEnvironment = await reconcilePurchases({ ...deps, environment: 'elsewhere' }, { since, repair: false });
    expect(otherEnvironment).toMatchObject({ providerPaid: 0, mismatches: [] });
    const before = await reconcilePurchases(deps, { since: new Date(since.getTime() - 3 * 60 * 60 * 1000), until: since, repair: false });
    expect(before).toMatchObject({ providerPaid: 0, mismatches: [] });
  });

  it('repairs a token-rail payment intent from its payment_intent.succeeded event', async () => {
    // The sandbox has no token rail: its objects are written as Stripe would report them.
    const created = Math.floor(Date.now() / 1000);
    const metadata = { purchase_kind: 'credit_pack', rail: 'shared_payment_token', agent_id: '507', pack: 'scale', credits: '400', price_cents: '4900', environment: ENVIRONMENT };
    const intent = { id: 'pi_token_1', object: 'payment_intent', amount: 4900, currency: 'usd', status: 'succeeded', metadata, created };
    await prisma.sandboxObject.createMany({
      data: [
        { id: intent.id, type: 'payment_intent', data: intent },
        { id: 'evt_token_1', type: 'event', data: { id: 'evt_token_1', object: 'event', type: 'payment_intent.succeeded', created, data: { object: intent } } },
      ],
    });
    const report = await reconcilePurchases(deps, { since, repair: true });
    expect(report.mismatches).toMatchObject([{ kind: 'paid_not_granted', id: 'pi_token_1', agentId: 507, credits: 400, amountCents: 4900 }]);
    expect(report.repaired).toEqual(['pi_token_1']);
    await consumeConfirmations();
    expect(await reconcilePurchases(deps, { since, repair: false })).toMatchObject({ providerPaid: 1, ledgerPurchases: 1, mismatches: [] });
  });
});
