import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { events } from '@cardlens/contracts';
import { isAppError } from '@cardlens/errors';
import { createLogger } from '@cardlens/telemetry';
import { describeOnPgliteAndPostgres } from '@cardlens/testing';
import { DAY_MS, FakeClock } from '../src/clock';
import { PrismaClient } from '../src/db';
import { defaultPricing } from '../src/domain/pricing';
import { ownerKeyOf } from '../src/domain/trial-owner';
import { PaymentProviderError, type PaymentProvider } from '../src/payments/provider';
import { createSandboxProvider, type SandboxProvider } from '../src/payments/sandbox-provider';
import { SUBSCRIPTION_EVENT_TYPES } from '../src/domain/subscription-events';
import { applySubscriptionConfirmation } from '../src/use-cases/apply-subscription-event';
import { createSubscriptionCheckout } from '../src/use-cases/create-subscription-checkout';
import { getSubscription } from '../src/use-cases/get-subscription';
import { handlePaymentWebhook, ingestPaymentEvent } from '../src/use-cases/handle-payment-webhook';
import { loadSubscriptionState } from '../src/use-cases/load-subscription-state';
import type { PurchaseDeps } from '../src/use-cases/purchase-deps';
import { openBillingDatabase } from './purchase-fixture';

// Issue 49, point 4: one grading trial per person, not only per API account. A second account of the same
// owner (normalised email) gets no trial and a trial_already_used refusal; a second account paying with the
// same card starts a trial that is ended at once (charged now, no trial access, the refusal on its view). Runs
// the sandbox provider end to end: checkout → pay with a test card → webhook → outbox → applied state.

const logger = createLogger('one-trial-per-person-test', { write: () => {} });
const WEBHOOK_SECRET = 'whsec_one_trial';
const CARD_A = '4242424242424242';
const CARD_D = '4242000000000001';

function oneTrialPerPerson(prismaOf: () => PrismaClient) {
  let server: Server;
  let sandbox: SandboxProvider;
  let deps: PurchaseDeps;
  let nextAgent = 100;

  beforeAll(async () => {
    const prisma = prismaOf();
    // The sandbox delivers its signed events here, as to the gateway's webhook route.
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        handlePaymentWebhook(deps, Buffer.concat(chunks), String(req.headers['stripe-signature'] ?? ''))
          .then(() => res.writeHead(200).end())
          .catch(() => res.writeHead(500).end());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const webhookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/webhooks/stripe`;
    sandbox = createSandboxProvider({ prisma, webhookSecret: WEBHOOK_SECRET, webhookUrl, publicBaseUrl: 'http://127.0.0.1:8080', logger, deliveryAttempts: 1 });
    deps = {
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
    };
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  /** Billing's consumer, in-process: applies the outbox's subscription confirmations in order, once. */
  const applyOutbox = async (): Promise<void> => {
    const rows = await deps.prisma.outboxMessage.findMany({ where: { publishedAt: null, topic: events.paymentConfirmationReceived.topic }, orderBy: { createdAt: 'asc' } });
    for (const row of rows) {
      await deps.prisma.$transaction(async (tx) => {
        await applySubscriptionConfirmation(tx, { pricing: deps.pricing, clock: deps.clock, logger }, events.paymentConfirmationReceived.decode(row.payload));
        await tx.outboxMessage.update({ where: { id: row.id }, data: { publishedAt: new Date() } });
      });
    }
  };
  const checkout = async (agentId: number, email: string) => {
    const result = await createSubscriptionCheckout(deps, { agentId, plan: 'grading_5000', contactEmail: email });
    if (result.kind !== 'checkout') throw new Error(`expected a checkout, got ${result.kind}`);
    return result;
  };
  const pay = async (checkoutUrl: string, card: string): Promise<void> => {
    await sandbox.pay(checkoutUrl.split('/').at(-1)!, card);
    await applyOutbox();
  };
  const stateOf = async (agentId: number) => (await loadSubscriptionState(deps.prisma, deps.clock, agentId)).state;

  it('the second trial: same owner email (normalised) gets none, same card has its trial ended at once, an unrelated account keeps its own', async () => {
    // A: the first trial of this person.
    const a = nextAgent++;
    const first = await checkout(a, ' Owner+x@Gmail.com');
    expect(first).toMatchObject({ trialDays: 7, trialRefusal: null });
    await pay(first.checkoutUrl, CARD_A);
    expect(await stateOf(a)).toMatchObject({ status: 'trialing', unlimitedGrading: true });
    expect(await deps.prisma.trialUse.findUnique({ where: { agentId: a } })).toMatchObject({ ownerKey: ownerKeyOf('owner@gmail.com'), refusal: null });

    // B: another account of the same owner (dots, googlemail.com, no tag): no trial, a clear refusal, still a checkout.
    const b = nextAgent++;
    const second = await checkout(b, 'o.w.n.e.r@googlemail.com');
    expect(second.trialDays).toBe(0);
    expect(second.trialRefusal).toMatchObject({ code: 'trial_already_used', detail: expect.stringMatching(/one trial per person/) });
    // Asking again returns the same session and the same answer.
    expect(await checkout(b, 'o.w.n.e.r@googlemail.com')).toMatchObject({ checkoutUrl: second.checkoutUrl, trialDays: 0, trialRefusal: { code: 'trial_already_used' } });
    expect(await deps.prisma.trialUse.findUnique({ where: { agentId: b } })).toBeNull();

    // C: a different email, the same card as A: the trial starts at the provider and is ended at once.
    const c = nextAgent++;
    const third = await checkout(c, 'someone.else@example.com');
    expect(third).toMatchObject({ trialDays: 7, trialRefusal: null });
    await pay(third.checkoutUrl, CARD_A);
    const refused = await deps.prisma.trialUse.findUnique({ where: { agentId: c } });
    expect(refused).toMatchObject({ refusal: 'same_card', cardFingerprint: null });
    expect(refused?.refusedAt).not.toBeNull();
    const cState = await stateOf(c);
    expect(cState.unlimitedGrading).toBe(false);
    // Charged at once: the paid allowance, not the trial.
    expect(cState).toMatchObject({ status: 'active', gradesRemaining: 5000 });
    const subscription = await deps.prisma.subscription.findFirst({ where: { agentId: c } });
    const atProvider = await sandbox.retrieveSubscription(subscription!.id);
    expect(atProvider?.status).toBe('active');
    expect(atProvider!.trialEnd!.getTime()).toBeLessThanOrEqual(deps.clock.now().getTime());
    const view = await getSubscription(deps, c);
    expect(view.trialRefusal).toMatchObject({ code: 'trial_already_used', detail: expect.stringMatching(/card/) });
    expect(view.unlimitedGrading).toBe(false);
    // A keeps its trial and shows no refusal.
    expect(await stateOf(a)).toMatchObject({ status: 'trialing', unlimitedGrading: true });
    expect((await getSubscription(deps, a)).trialRefusal).toBeNull();

    // D: an unrelated owner with another card keeps its trial.
    const d = nextAgent++;
    const fourth = await checkout(d, 'd.owner@example.com');
    expect(fourth).toMatchObject({ trialDays: 7, trialRefusal: null });
    await pay(fourth.checkoutUrl, CARD_D);
    expect(await stateOf(d)).toMatchObject({ status: 'trialing', unlimitedGrading: true });
    expect((await getSubscription(deps, d)).trialRefusal).toBeNull();
  });

  it('an owner key held by a checkout that expired unused is released to the next account', async () => {
    const clock = new FakeClock();
    const withClock: PurchaseDeps = { ...deps, clock };
    const e1 = nextAgent++;
    const e2 = nextAgent++;
    expect(await createSubscriptionCheckout(withClock, { agentId: e1, plan: 'grading_5000', contactEmail: 'release@example.com' })).toMatchObject({ trialDays: 7, trialRefusal: null });
    // While e1's checkout is open, the same owner's other account gets no trial.
    expect(await createSubscriptionCheckout(withClock, { agentId: e2, plan: 'grading_5000', contactEmail: 'Release+second@Example.com' })).toMatchObject({ trialDays: 0, trialRefusal: { code: 'trial_already_used' } });
    clock.advance(DAY_MS + 60_000);
    // e1's checkout expired unused: e2's next checkout (its own expired too) takes the person's trial.
    expect(await createSubscriptionCheckout(withClock, { agentId: e2, plan: 'grading_5000', contactEmail: 'Release+second@Example.com' })).toMatchObject({ trialDays: 7, trialRefusal: null });
    expect(await deps.prisma.trialUse.findUnique({ where: { agentId: e2 } })).toMatchObject({ ownerKey: ownerKeyOf('release@example.com') });
    expect(await deps.prisma.trialUse.findUnique({ where: { agentId: e1 } })).toBeNull();
  });

  it('a provider failure learning the card fails the event with nothing recorded; its redelivery applies it', async () => {
    const f = nextAgent++;
    const offer = await checkout(f, 'f.owner@example.com');
    const since = new Date(deps.clock.now().getTime() - 1000);
    // Paid with the webhook down: the events wait at the provider.
    const down: PurchaseDeps = { ...deps };
    const original = deps.provider;
    deps.provider = { ...original, verifyWebhook: () => { throw new Error('down'); } } as PaymentProvider;
    await sandbox.pay(offer.checkoutUrl.split('/').at(-1)!, '4242000000000002');
    deps.provider = original;
    const created = [];
    for await (const event of sandbox.listEvents(SUBSCRIPTION_EVENT_TYPES, since)) {
      if (event.type === 'customer.subscription.created' && (event.object.metadata as Record<string, string>).agent_id === String(f)) created.push(event);
    }
    expect(created).toHaveLength(1);
    const failing: PurchaseDeps = { ...down, provider: { ...original, retrieveCardFingerprint: () => Promise.reject(new PaymentProviderError('unavailable', 'outage')) } };
    const error = await ingestPaymentEvent(failing, created[0]!, 'webhook').catch((e: unknown) => e);
    expect(isAppError(error) && error.code).toBe('billing_unavailable');
    expect(await deps.prisma.paymentEvent.count({ where: { id: created[0]!.id } })).toBe(0);
    expect(await ingestPaymentEvent(deps, created[0]!, 'webhook')).toMatchObject({ duplicate: false });
    expect((await deps.prisma.trialUse.findUnique({ where: { agentId: f } }))?.cardFingerprint).toMatch(/^fp_sandbox_/);
  });
}

describeOnPgliteAndPostgres('one trial per person', { label: 'billing_one_trial_per_person', open: openBillingDatabase }, oneTrialPerPerson);
