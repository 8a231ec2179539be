import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@cardlens/telemetry';
import { createSandboxProvider, type SandboxProvider } from '../src/payments/sandbox-provider';
import { signStripePayload } from '../src/payments/webhook-signature';
import { createCreditPurchase } from '../src/use-cases/create-credit-purchase';
import { financeReport, financeReportCsv } from '../src/use-cases/finance-report';
import { handlePaymentWebhook } from '../src/use-cases/handle-payment-webhook';
import type { PurchaseDeps } from '../src/use-cases/purchase-deps';
import { migratedPglite, testPurchaseDeps, type MigratedPglite } from './purchase-fixture';

// Issue 49, point 8: a validly signed confirmation grants only for a payment billing set up. A session or payment
// intent we never created (whoever signed it, with whatever credits in its metadata) is stored unapplied and
// flagged for the reconciliation; our own sessions grant as before, including one whose creation crashed before
// we recorded the provider's id (the provider confirms it on retrieval).
describe('only our sessions grant', () => {
  const SECRET = 'whsec_foreign';
  let db: MigratedPglite;
  let sandbox: SandboxProvider;
  let deps: PurchaseDeps;

  beforeAll(async () => {
    db = await migratedPglite();
    const logger = createLogger('foreign-payments-test', { write: () => {} });
    sandbox = createSandboxProvider({ prisma: db.prisma, webhookSecret: SECRET, webhookUrl: 'http://127.0.0.1:9/none', publicBaseUrl: 'http://127.0.0.1:8080', logger, deliveryAttempts: 1 });
    deps = testPurchaseDeps(db.prisma, sandbox, { logger });
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  const metadata = (agentId: number, credits: number, extra: Record<string, string> = {}) => ({
    purchase_kind: 'credit_pack',
    rail: 'checkout',
    agent_id: String(agentId),
    pack: 'scale',
    credits: String(credits),
    price_cents: '4900',
    environment: 'unit',
    ...extra,
  });
  const deliver = (event: Record<string, unknown>) => {
    const payload = JSON.stringify(event);
    return handlePaymentWebhook(deps, Buffer.from(payload), signStripePayload(payload, SECRET));
  };
  const completed = (id: string, session: Record<string, unknown>) => ({
    id,
    object: 'event',
    type: 'checkout.session.completed',
    created: Math.floor(Date.now() / 1000),
    data: { object: { object: 'checkout.session', mode: 'payment', status: 'complete', payment_status: 'paid', amount_total: 4900, currency: 'usd', expires_at: Math.floor(Date.now() / 1000) + 3600, created: Math.floor(Date.now() / 1000), ...session } },
  });
  const outboxCount = () => db.prisma.outboxMessage.count();

  it('a signed event for a checkout session we never created is stored, flagged and grants nothing', async () => {
    const before = await outboxCount();
    const result = await deliver(completed('evt_forged_1', { id: 'cs_never_created', metadata: metadata(41, 100_000), payment_intent: 'pi_forged' }));
    expect(result).toMatchObject({ eventId: 'evt_forged_1', duplicate: false });
    const stored = await db.prisma.paymentEvent.findUniqueOrThrow({ where: { id: 'evt_forged_1' } });
    expect(stored).toMatchObject({ confirmsPayment: false, flaggedReason: 'no such checkout session at the payment provider', checkoutSessionId: 'cs_never_created' });
    expect(await outboxCount()).toBe(before);
    expect(await db.prisma.ledgerEntry.count({ where: { agentId: 41 } })).toBe(0);
    // A redelivery changes nothing.
    expect(await deliver(completed('evt_forged_1', { id: 'cs_never_created', metadata: metadata(41, 100_000) }))).toMatchObject({ duplicate: true });
  });

  it('a real session at the provider that billing did not create is flagged too', async () => {
    // Created at the provider by someone else (here: straight through the provider, with no row of ours), then paid.
    const session = await sandbox.createCheckoutSession({
      idempotencyKey: 'outsider-1',
      priceId: 'price_outsider',
      customerId: 'cus_outsider',
      receiptEmail: null,
      amountCents: 4900,
      currency: 'usd',
      productName: 'not ours',
      clientReferenceId: '42',
      metadata: metadata(42, 5000, { checkout_id: '00000000-0000-4000-8000-00000000dead' }),
      expiresAt: new Date(Date.now() + 3600_000),
      successUrl: 'http://127.0.0.1:8080/ok',
      cancelUrl: 'http://127.0.0.1:8080/no',
    });
    await sandbox.pay(session.id);
    const paid = await sandbox.retrieveCheckoutSession(session.id);
    await deliver(completed('evt_outsider_1', { id: session.id, metadata: paid!.metadata, payment_intent: paid!.paymentIntentId }));
    expect(await db.prisma.paymentEvent.findUniqueOrThrow({ where: { id: 'evt_outsider_1' } })).toMatchObject({ confirmsPayment: false, flaggedReason: 'checkout session not created by billing' });
    expect(await db.prisma.ledgerEntry.count({ where: { agentId: 42 } })).toBe(0);
  });

  it('a payment intent the provider does not have is flagged', async () => {
    await deliver({
      id: 'evt_forged_pi',
      object: 'event',
      type: 'payment_intent.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: 'pi_never_created', object: 'payment_intent', status: 'succeeded', amount: 4900, currency: 'usd', created: 1, metadata: metadata(43, 400, { rail: 'shared_payment_token' }) } },
    });
    expect(await db.prisma.paymentEvent.findUniqueOrThrow({ where: { id: 'evt_forged_pi' } })).toMatchObject({ confirmsPayment: false, flaggedReason: 'no such payment intent at the payment provider' });
  });

  it('our own session grants; so does one whose creation crashed before we stored its provider id', async () => {
    const offer = await createCreditPurchase(deps, { agentId: 44, pack: 'starter' });
    const sessionId = offer.checkoutUrl.split('/').pop()!;
    await sandbox.pay(sessionId);
    const before = await outboxCount();
    const paid = await sandbox.retrieveCheckoutSession(sessionId);
    await deliver(completed('evt_ours_1', { id: sessionId, metadata: paid!.metadata, payment_intent: paid!.paymentIntentId, amount_total: 500 }));
    expect(await db.prisma.paymentEvent.findUniqueOrThrow({ where: { id: 'evt_ours_1' } })).toMatchObject({ confirmsPayment: true, flaggedReason: null });
    expect(await outboxCount()).toBe(before + 1);

    // The crash: our row exists (`creating`, no provider id) and the provider's session names it.
    const crashed = await createCreditPurchase(deps, { agentId: 45, pack: 'starter' });
    const crashedId = crashed.checkoutUrl.split('/').pop()!;
    await db.prisma.checkoutSession.updateMany({ where: { providerSessionId: crashedId }, data: { providerSessionId: null, url: null, state: 'creating' } });
    await sandbox.pay(crashedId);
    const crashedPaid = await sandbox.retrieveCheckoutSession(crashedId);
    await deliver(completed('evt_ours_2', { id: crashedId, metadata: crashedPaid!.metadata, payment_intent: crashedPaid!.paymentIntentId, amount_total: 500 }));
    expect(await db.prisma.paymentEvent.findUniqueOrThrow({ where: { id: 'evt_ours_2' } })).toMatchObject({ confirmsPayment: true, flaggedReason: null });
    expect(await db.prisma.checkoutSession.findFirst({ where: { agentId: 45 } })).toMatchObject({ providerSessionId: crashedId });
  });

  it('a signed subscription checkout we never created starts nothing', async () => {
    const before = await outboxCount();
    await deliver(
      completed('evt_forged_sub', {
        id: 'cs_sub_never_created',
        mode: 'subscription',
        subscription: 'sub_forged',
        customer: 'cus_forged',
        metadata: { purchase_kind: 'subscription', rail: 'checkout', agent_id: '46', plan: 'grading_10000', price_cents: '0', trial_days: '7', environment: 'unit', checkout_id: '00000000-0000-4000-8000-00000000beef' },
      }),
    );
    expect(await db.prisma.paymentEvent.findUniqueOrThrow({ where: { id: 'evt_forged_sub' } })).toMatchObject({ confirmsPayment: false, flaggedReason: 'no such completed subscription checkout at the payment provider' });
    expect(await outboxCount()).toBe(before);
  });

  it('the finance report lists every flagged confirmation', async () => {
    const rows = await financeReport(deps, { since: new Date(Date.now() - 3600_000) });
    const flagged = rows.filter((r) => r.type === 'flagged_confirmation');
    const ids = flagged.map((r) => r.checkoutSessionId ?? r.paymentIntentId);
    expect(ids).toHaveLength(4);
    expect(ids).toEqual(expect.arrayContaining(['cs_never_created', 'cs_sub_never_created', expect.stringMatching(/^cs_sandbox_/), 'pi_never_created']));
    expect(flagged.every((r) => r.status === 'flagged' && r.ledgerEntryId === null)).toBe(true);
    expect(flagged.find((r) => r.checkoutSessionId === 'cs_never_created')).toMatchObject({ agentId: 41, credits: 100_000, note: expect.stringContaining('no such checkout session') });
    expect(financeReportCsv(rows)).toContain('flagged_confirmation,flagged,41');
  });

  it('the finance report lists plan payments beside the credit packs', async () => {
    const now = new Date();
    await db.prisma.allowancePeriod.create({
      data: { agentId: 47, subscriptionId: 'sub_report', invoiceId: 'in_report_1', plan: 'grading_5000', granted: 5000, periodStart: now, periodEnd: new Date(now.getTime() + 30 * 86_400_000), amountCents: 25000, paidAt: now },
    });
    const rows = await financeReport(deps, { since: new Date(now.getTime() - 60_000) });
    expect(rows.find((r) => r.type === 'plan_payment')).toMatchObject({ agentId: 47, pack: 'grading_5000', amountCents: 25000, currency: 'USD', status: 'ok', note: expect.stringContaining('in_report_1') });
    expect(financeReportCsv(rows)).toContain('plan_payment,ok,47,,grading_5000,,250.00,USD');
  });
});
