import { randomBytes } from 'node:crypto';
import type { Logger } from '@cardlens/telemetry';
import type { Prisma, PrismaClient } from '../db';
import { PaymentProviderError, type CreateCheckoutInput, type CreateCustomerInput, type CreatePriceInput, type EnsureProductInput, type PaymentProvider, type ProviderEvent } from './provider';
import { SandboxClock } from './sandbox-clock';
import { createSandboxSubscriptions, sandboxCard, type SandboxPortalView } from './sandbox-subscriptions';
import { checkoutSessionFromStripe, eventFromStripe, paymentIntentFromStripe, priceFromStripe, type StripeObject } from './stripe-objects';
import { signStripePayload, verifyStripeSignedEvent } from './webhook-signature';

/**
 * The local sandbox payment provider: stands in for Stripe when no STRIPE_SECRET_KEY is configured (the
 * embedded default and tests), behind the same port. No money moves. Its checkout URL is a page the service
 * serves itself (/sandbox/checkout/<id>) with Pay and Cancel buttons; paying writes Stripe-shaped objects and
 * delivers a signed `checkout.session.completed` event to the service's own webhook endpoint, so purchase →
 * checkout → webhook → outbox → bus → ledger runs end to end exactly as with Stripe. Its objects live in
 * billing's `sandbox_objects` table so a checkout link survives a restart. It has no shared payment tokens
 * (the config refuses SPT_ENABLED without a Stripe key).
 */
export interface SandboxProviderOptions {
  prisma: PrismaClient;
  webhookSecret: string;
  /** Where events are delivered: the gateway's POST /v1/webhooks/stripe. */
  webhookUrl: string;
  /** Base of the checkout page URL (the public base URL of the gateway). */
  publicBaseUrl: string;
  logger: Logger;
  /** Delivery attempts per event (Stripe retries for days; here a few quick tries, then reconciliation). */
  deliveryAttempts?: number;
  /** How often the billing cycle runs on its own (trial ends and renewals as real time passes). */
  cycleIntervalMs?: number;
}

export interface SandboxCheckoutView {
  id: string;
  status: 'open' | 'complete' | 'expired';
  description: string;
  amountCents: number;
  currency: string;
  expiresAt: Date;
  successUrl: string;
  cancelUrl: string;
  mode: 'payment' | 'subscription';
  trialDays: number;
}

export interface SandboxProvider extends PaymentProvider {
  readonly name: 'sandbox';
  /** The sandbox clock: billing's clock while the sandbox runs. */
  readonly clock: SandboxClock;
  /** Loads the clock and starts the billing cycle's ticker. */
  start(): Promise<void>;
  stop(): void;
  /** The checkout page's data; undefined for an unknown session. */
  getCheckout(id: string): Promise<SandboxCheckoutView | undefined>;
  /**
   * The owner pressed Pay (with a sandbox test card for subscriptions): the session is paid and its events
   * delivered. Returns the success URL.
   */
  pay(id: string, card?: string): Promise<string>;
  getPortal(id: string): Promise<SandboxPortalView | undefined>;
  portalAct(id: string, action: 'update_card' | 'cancel_at_period_end', card?: string): Promise<string>;
  /** Moves the sandbox clock forward and runs what fell due; returns the number of events emitted. */
  advanceClock(seconds: number): Promise<{ now: Date; offsetSeconds: number; eventsEmitted: number }>;
  /** The owner pressed Cancel: nothing changes (the session stays open until it expires). Returns the cancel URL. */
  cancel(id: string): Promise<string>;
}

const randomId = (prefix: string): string => `${prefix}_${randomBytes(18).toString('base64url').replace(/[-_]/g, '').slice(0, 24)}`;
const unix = (date: Date): number => Math.floor(date.getTime() / 1000);

export function createSandboxProvider(options: SandboxProviderOptions): SandboxProvider {
  const { prisma, logger } = options;
  const attempts = options.deliveryAttempts ?? 4;
  const clock = new SandboxClock(prisma);
  const now = (): Date => clock.now();

  const load = async (id: string, type: string, client: Prisma.TransactionClient | PrismaClient = prisma): Promise<StripeObject | undefined> => {
    const row = await client.sandboxObject.findUnique({ where: { id } });
    return row && row.type === type ? (row.data as StripeObject) : undefined;
  };
  const save = (tx: Prisma.TransactionClient | PrismaClient, id: string, type: string, data: StripeObject) =>
    tx.sandboxObject.upsert({ where: { id }, create: { id, type, data: data as Prisma.InputJsonValue }, update: { data: data as Prisma.InputJsonValue } });

  /** Records the event (for the events list the reconciliation reads) and delivers it in the background. */
  const emit = async (tx: Prisma.TransactionClient | PrismaClient, type: string, object: StripeObject, at: Date = now()): Promise<StripeObject> => {
    const event = { id: randomId('evt_sandbox'), object: 'event', type, created: unix(at), livemode: false, api_version: 'sandbox', data: { object } };
    await save(tx, event.id, 'event', event);
    return event;
  };

  const deliverOnce = async (event: StripeObject, attempt: number): Promise<boolean> => {
    // Signed at send time, as Stripe does, so a retry carries a fresh timestamp.
    const payload = JSON.stringify(event);
    try {
      const response = await fetch(options.webhookUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signStripePayload(payload, options.webhookSecret) },
        body: payload,
        signal: AbortSignal.timeout(10_000),
      });
      if (response.ok) return true;
      logger.warn({ eventId: event.id, status: response.status, attempt }, 'sandbox webhook delivery refused');
    } catch (error) {
      logger.warn({ eventId: event.id, err: error, attempt }, 'sandbox webhook delivery failed');
    }
    return false;
  };

  /** Delivers an event: the first attempt is awaited, retries (with backoff) continue in the background. */
  const deliver = async (event: StripeObject): Promise<void> => {
    if (await deliverOnce(event, 1)) return;
    void (async () => {
      for (let attempt = 2; attempt <= attempts; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** attempt).unref());
        if (await deliverOnce(event, attempt)) return;
      }
      logger.error({ eventId: event.id }, 'sandbox webhook not delivered; `npm run billing:reconcile -- --since <date> --repair` feeds it');
    })();
  };

  /** An open session past its expiry reads as expired, and its `checkout.session.expired` event goes out once. */
  const current = async (id: string): Promise<StripeObject | undefined> => {
    const session = await load(id, 'checkout.session');
    if (!session || session.status !== 'open' || Number(session.expires_at) > unix(now())) return session;
    const expired = { ...session, status: 'expired' };
    const event = await prisma.$transaction(async (tx) => {
      await save(tx, id, 'checkout.session', expired);
      return emit(tx, 'checkout.session.expired', expired);
    });
    void deliver(event);
    return expired;
  };

  const subscriptions = createSandboxSubscriptions({
    prisma,
    clock,
    logger,
    publicBaseUrl: options.publicBaseUrl,
    randomId,
    load,
    save,
    emit,
    deliverAll: async (events) => {
      for (const event of events) await deliver(event);
    },
  });
  let ticker: NodeJS.Timeout | undefined;

  return {
    name: 'sandbox',
    clock,

    async start() {
      await clock.load();
      ticker = setInterval(() => {
        subscriptions.runDue().catch((error: unknown) => logger.error({ err: error }, 'sandbox billing cycle failed'));
      }, options.cycleIntervalMs ?? 10_000);
      ticker.unref();
    },
    stop() {
      if (ticker) clearInterval(ticker);
    },

    async createCheckoutSession(input: CreateCheckoutInput) {
      // Stripe's idempotency: the same key returns the session it created the first time.
      const existing = await prisma.sandboxObject.findFirst({ where: { type: 'checkout.session', data: { path: ['idempotency_key'], equals: input.idempotencyKey } } });
      if (existing) return checkoutSessionFromStripe(existing.data as StripeObject);
      const id = randomId('cs_sandbox');
      const session: StripeObject = {
        id,
        object: 'checkout.session',
        mode: 'payment',
        status: 'open',
        payment_status: 'unpaid',
        url: `${options.publicBaseUrl}/sandbox/checkout/${id}`,
        amount_total: input.amountCents,
        currency: input.currency,
        client_reference_id: input.clientReferenceId,
        customer: input.customerId,
        sandbox_price: input.priceId,
        receipt_email: input.receiptEmail,
        metadata: input.metadata,
        payment_intent: null,
        expires_at: unix(input.expiresAt),
        created: unix(now()),
        success_url: input.successUrl.replace('{CHECKOUT_SESSION_ID}', id),
        cancel_url: input.cancelUrl,
        description: input.productName,
        idempotency_key: input.idempotencyKey,
        livemode: false,
      };
      await save(prisma, id, 'checkout.session', session);
      return checkoutSessionFromStripe(session);
    },

    async retrieveCheckoutSession(id: string) {
      const session = await current(id);
      return session ? checkoutSessionFromStripe(session) : undefined;
    },

    async expireCheckoutSession(id: string) {
      const event = await prisma.$transaction(async (tx) => {
        // Row lock: an expiry and a Pay click never both win.
        await tx.$queryRaw`SELECT id FROM "billing"."sandbox_objects" WHERE id = ${id} FOR UPDATE`;
        const session = await load(id, 'checkout.session', tx);
        if (!session || session.status !== 'open') return undefined;
        const expired = { ...session, status: 'expired' };
        await save(tx, id, 'checkout.session', expired);
        return emit(tx, 'checkout.session.expired', expired);
      });
      if (event) void deliver(event);
    },

    async retrievePaymentIntent(id: string) {
      const intent = await load(id, 'payment_intent');
      return intent ? paymentIntentFromStripe(intent) : undefined;
    },

    verifyWebhook: (payload: Buffer, signature: string): ProviderEvent => verifyStripeSignedEvent(payload, signature, options.webhookSecret),

    async *listCheckoutSessions(since: Date) {
      for (const row of await listRows('checkout.session', since)) yield checkoutSessionFromStripe(row);
    },
    async *listPaymentIntents(since: Date) {
      for (const row of await listRows('payment_intent', since)) yield paymentIntentFromStripe(row);
    },
    async *listEvents(types: readonly string[], since: Date) {
      for (const row of await listRows('event', since)) if (types.includes(String(row.type))) yield eventFromStripe(row);
    },

    retrieveGrantedToken() {
      return Promise.reject(new PaymentProviderError('invalid', 'the sandbox provider has no shared payment tokens'));
    },
    confirmTokenPayment() {
      return Promise.reject(new PaymentProviderError('invalid', 'the sandbox provider has no shared payment tokens'));
    },

    async getCheckout(id: string) {
      const session = await current(id);
      if (!session) return undefined;
      return {
        id,
        status: session.status as SandboxCheckoutView['status'],
        description: String(session.description ?? ''),
        amountCents: Number(session.amount_total),
        currency: String(session.currency),
        expiresAt: new Date(Number(session.expires_at) * 1000),
        successUrl: String(session.success_url),
        cancelUrl: String(session.cancel_url),
        mode: session.mode === 'subscription' ? 'subscription' : 'payment',
        trialDays: Number((session.subscription_data as StripeObject | undefined)?.trial_period_days ?? 0),
        // A subscription page shows the monthly price, not today's total (0 during a trial).
        ...(session.mode === 'subscription' && session.sandbox_price ? { amountCents: Number((await load(String(session.sandbox_price), 'price'))?.unit_amount ?? 0) } : {}),
      };
    },

    async pay(id: string, card?: string) {
      const chosen = sandboxCard(card);
      const events = await prisma.$transaction(async (tx) => {
        // Row lock: two Pay clicks at once make one payment.
        await tx.$queryRaw`SELECT id FROM "billing"."sandbox_objects" WHERE id = ${id} FOR UPDATE`;
        const session = await load(id, 'checkout.session', tx);
        if (!session) throw new PaymentProviderError('not_found', `no sandbox checkout session ${id}`);
        if (session.status === 'complete') return [];
        if (session.status !== 'open' || Number(session.expires_at) <= unix(now())) throw new PaymentProviderError('invalid', `checkout session ${id} is ${String(session.status)}`);
        if (session.mode === 'subscription') return (await subscriptions.paySubscriptionCheckout(tx, session, chosen)).events;
        const intentId = randomId('pi_sandbox');
        const intent = {
          id: intentId,
          object: 'payment_intent',
          amount: session.amount_total,
          currency: session.currency,
          status: 'succeeded',
          customer: session.customer ?? null,
          receipt_email: session.receipt_email ?? null,
          metadata: session.metadata,
          created: unix(now()),
          livemode: false,
        };
        const paid = { ...session, status: 'complete', payment_status: 'paid', payment_intent: intentId };
        await save(tx, intentId, 'payment_intent', intent);
        await save(tx, id, 'checkout.session', paid);
        return [await emit(tx, 'checkout.session.completed', paid)];
      });
      // The first attempts are awaited, so the owner's next page (the success URL) normally finds them delivered.
      for (const event of events) await deliver(event);
      if (events.length === 0) logger.info({ checkoutSessionId: id }, 'sandbox checkout already paid');
      const session = await load(id, 'checkout.session');
      return String(session?.success_url);
    },

    createSubscriptionCheckout: subscriptions.createSubscriptionCheckout,
    retrieveSubscription: subscriptions.retrieveSubscription,
    createPortalSession: subscriptions.createPortalSession,
    schedulePlanChange: subscriptions.schedulePlanChange,
    cancelAtPeriodEnd: subscriptions.cancelAtPeriodEnd,
    listSubscriptions: subscriptions.listSubscriptions,
    retrieveCardFingerprint: subscriptions.retrieveCardFingerprint,
    endTrialNow: subscriptions.endTrialNow,

    // The catalog and customers mirror Stripe's objects (ids, lookup keys, transfer, archiving), simply.
    async ensureProduct(input: EnsureProductInput) {
      const existing = await load(input.id, 'product');
      if (existing && existing.name === input.name) return 'unchanged';
      await save(prisma, input.id, 'product', { id: input.id, object: 'product', name: input.name, active: true, metadata: input.metadata, created: Number(existing?.created ?? unix(now())) });
      return existing ? 'updated' : 'created';
    },
    async findPriceByLookupKey(lookupKey: string) {
      const row = await prisma.sandboxObject.findFirst({ where: { type: 'price', AND: [{ data: { path: ['lookup_key'], equals: lookupKey } }, { data: { path: ['active'], equals: true } }] } });
      return row ? priceFromStripe(row.data as StripeObject) : undefined;
    },
    async createPrice(input: CreatePriceInput) {
      return prisma.$transaction(async (tx) => {
        const again = await tx.sandboxObject.findFirst({ where: { type: 'price', data: { path: ['idempotency_key'], equals: input.idempotencyKey } } });
        if (again) return priceFromStripe(again.data as StripeObject);
        const product = await load(input.productId, 'product', tx);
        if (!product) throw new PaymentProviderError('invalid', `no sandbox product ${input.productId}`);
        const holders = await tx.sandboxObject.findMany({ where: { type: 'price', data: { path: ['lookup_key'], equals: input.lookupKey } } });
        if (holders.length > 0 && !input.transferLookupKey) throw new PaymentProviderError('invalid', `a price already uses the lookup key ${input.lookupKey}`);
        for (const holder of holders) await save(tx, holder.id, 'price', { ...(holder.data as StripeObject), lookup_key: null });
        const id = randomId('price_sandbox');
        const price = {
          id,
          object: 'price',
          product: input.productId,
          product_name: product.name,
          lookup_key: input.lookupKey,
          unit_amount: input.amountCents,
          currency: input.currency,
          recurring: input.interval ? { interval: input.interval, interval_count: 1 } : null,
          metadata: input.metadata,
          active: true,
          idempotency_key: input.idempotencyKey,
          created: unix(now()),
        };
        await save(tx, id, 'price', price);
        return priceFromStripe(price);
      });
    },
    async deactivatePrice(id: string) {
      const price = await load(id, 'price');
      if (!price) throw new PaymentProviderError('not_found', `no sandbox price ${id}`);
      await save(prisma, id, 'price', { ...price, active: false });
    },
    async findCustomer(agentId: number, environment: string) {
      const row = await prisma.sandboxObject.findFirst({
        where: { type: 'customer', AND: [{ data: { path: ['metadata', 'agent_id'], equals: String(agentId) } }, { data: { path: ['metadata', 'environment'], equals: environment } }] },
      });
      return row?.id;
    },
    async createCustomer(input: CreateCustomerInput) {
      const again = await prisma.sandboxObject.findFirst({ where: { type: 'customer', data: { path: ['idempotency_key'], equals: input.idempotencyKey } } });
      if (again) return again.id;
      const id = randomId('cus_sandbox');
      await save(prisma, id, 'customer', { id, object: 'customer', name: input.name, email: input.email, metadata: input.metadata, idempotency_key: input.idempotencyKey, created: unix(now()) });
      return id;
    },
    async updateCustomerEmail(customerId: string, email: string) {
      const customer = await load(customerId, 'customer');
      if (!customer) throw new PaymentProviderError('not_found', `no sandbox customer ${customerId}`);
      await save(prisma, customerId, 'customer', { ...customer, email });
    },
    // No money moves in the sandbox, so nothing is ever refunded.
    async *listRefunds() {},
    getPortal: subscriptions.getPortal,
    portalAct: subscriptions.portalAct,

    async advanceClock(seconds: number) {
      if (!Number.isInteger(seconds) || seconds <= 0 || seconds > 400 * 86_400) throw new PaymentProviderError('invalid', 'advance by 1 s to 400 days');
      await clock.advance(seconds * 1000);
      const eventsEmitted = await subscriptions.runDue();
      return { now: clock.now(), offsetSeconds: clock.offsetSeconds, eventsEmitted };
    },

    async cancel(id: string) {
      const session = await current(id);
      if (!session) throw new PaymentProviderError('not_found', `no sandbox checkout session ${id}`);
      return String(session.cancel_url);
    },
  };

  async function listRows(type: string, since: Date): Promise<StripeObject[]> {
    const rows = await prisma.sandboxObject.findMany({ where: { type, createdAt: { gte: since } }, orderBy: { createdAt: 'desc' } });
    return rows.map((row) => row.data as StripeObject);
  }
}
