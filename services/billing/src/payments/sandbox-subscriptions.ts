import { createHash } from 'node:crypto';
import type { Logger } from '@cardlens/telemetry';
import { addMonthUtc, DAY_MS } from '../clock';
import type { Prisma, PrismaClient } from '../db';
import {
  PaymentProviderError,
  type CreateSubscriptionCheckoutInput,
  type ProviderSubscription,
  type ProviderSubscriptionSchedule,
  type SchedulePlanChangeInput,
} from './provider';
import type { SandboxClock } from './sandbox-clock';
import { checkoutSessionFromStripe, scheduleFromStripe, subscriptionFromStripe, type StripeObject } from './stripe-objects';

type Tx = Prisma.TransactionClient | PrismaClient;

/** The sandbox's storage and event plumbing (sandbox-provider.ts), shared with its subscription half. */
export interface SandboxStore {
  prisma: PrismaClient;
  clock: SandboxClock;
  logger: Logger;
  publicBaseUrl: string;
  randomId(prefix: string): string;
  load(id: string, type: string, client?: Tx): Promise<StripeObject | undefined>;
  save(tx: Tx, id: string, type: string, data: StripeObject): Promise<unknown>;
  /** Records an event stamped `at` (sandbox time) for delivery. */
  emit(tx: Tx, type: string, object: StripeObject, at?: Date): Promise<StripeObject>;
  /** Delivers events in order (each one's first attempt awaited). */
  deliverAll(events: StripeObject[]): Promise<void>;
}

/**
 * Stripe's test cards, as the sandbox understands them: 4242 pays; 0341 attaches but every charge declines.
 * Other numbers of the same shapes (16 digits: 4242 then any 12; 4000, any 8, then 0341) behave alike and are
 * other cards (their own fingerprints), so tests and local trials can play several people (one trial per card).
 */
export const SANDBOX_CARDS = { pays: '4242424242424242', declines: '4000000000000341' } as const;
const PAYING_CARD = /^4242\d{12}$/;
const DECLINING_CARD = /^4000\d{8}0341$/;
const cardDeclines = (card: unknown): boolean => typeof card === 'string' && DECLINING_CARD.test(card);
export function sandboxCard(card: string | undefined): string {
  if (!card) return SANDBOX_CARDS.pays;
  if (!PAYING_CARD.test(card) && !DECLINING_CARD.test(card)) throw new PaymentProviderError('invalid', 'unknown sandbox test card');
  return card;
}

/** A card's fingerprint in the sandbox: stable per card number, as Stripe's is per card across customers. */
export function sandboxCardFingerprint(card: string): string {
  return `fp_sandbox_${createHash('sha256').update(card).digest('hex').slice(0, 16)}`;
}

/** Stripe charges a renewal about an hour after the period turns (the invoice is finalized first). */
const CHARGE_DELAY_MS = 60 * 60_000;
/** Failed renewals are retried daily; after the last attempt the subscription is cancelled (payment_failed). */
const RETRY_INTERVAL_MS = DAY_MS;
const MAX_ATTEMPTS = 4;
/** customer.subscription.trial_will_end goes out three days before the trial ends, as at Stripe. */
const TRIAL_WILL_END_MS = 3 * DAY_MS;

const unix = (date: Date): number => Math.floor(date.getTime() / 1000);
const at = (seconds: unknown): Date => new Date(Number(seconds) * 1000);
const itemOf = (sub: StripeObject): StripeObject => ((sub.items as StripeObject).data as StripeObject[])[0]!;
const sandboxOf = (object: StripeObject): StripeObject => (object.sandbox ?? {}) as StripeObject;

export interface SandboxPortalView {
  id: string;
  subscriptionId: string;
  plan: string;
  status: string;
  cancelAtPeriodEnd: boolean;
  cardLast4: string;
  renewsOrEndsAt: Date | null;
  returnUrl: string;
  priceCents: number;
}

/**
 * The sandbox's subscriptions: subscription checkouts (on the catalog's prices), customers, subscriptions in the shape of API
 * version 2025-03-31+ (period dates on the item), invoices, schedules and portal sessions, plus the billing
 * cycle itself: `runDue` moves every subscription whose trial end, period end or payment retry has passed on
 * the sandbox clock, emitting the events Stripe would (customer.subscription.updated/deleted, invoice.paid,
 * invoice.payment_failed, customer.subscription.trial_will_end), stamped with the time they fell due.
 */
export function createSandboxSubscriptions(store: SandboxStore) {
  const { prisma, clock, logger } = store;

  const listOfType = async (type: string, client: Tx = prisma): Promise<StripeObject[]> =>
    (await client.sandboxObject.findMany({ where: { type }, orderBy: { createdAt: 'asc' } })).map((row) => row.data as StripeObject);

  const priceOf = async (priceId: string, client: Tx = prisma): Promise<StripeObject> => {
    const price = await store.load(priceId, 'price', client);
    if (!price) throw new PaymentProviderError('not_found', `no sandbox price ${priceId}`);
    return price;
  };

  const subscriptionItem = (price: StripeObject, start: Date, end: Date): StripeObject => ({
    id: store.randomId('si_sandbox'),
    object: 'subscription_item',
    price: { id: price.id, object: 'price', unit_amount: price.unit_amount, currency: price.currency, product: price.product, lookup_key: price.lookup_key },
    quantity: 1,
    current_period_start: unix(start),
    current_period_end: unix(end),
  });

  const invoice = (sub: StripeObject, price: StripeObject, amount: number, start: Date, end: Date, reason: string, created: Date): StripeObject => ({
    id: store.randomId('in_sandbox'),
    object: 'invoice',
    customer: sub.customer,
    status: 'open',
    amount_due: amount,
    amount_paid: 0,
    currency: price.currency,
    billing_reason: reason,
    attempt_count: 0,
    created: unix(created),
    parent: { type: 'subscription_details', subscription_details: { subscription: sub.id, metadata: sub.metadata } },
    lines: {
      object: 'list',
      data: [
        {
          id: store.randomId('il_sandbox'),
          object: 'line_item',
          amount,
          period: { start: unix(start), end: unix(end) },
          pricing: { type: 'price_details', price_details: { price: price.id, product: price.product } },
          parent: { type: 'subscription_item_details', subscription_item_details: { subscription: sub.id } },
        },
      ],
    },
    livemode: false,
  });

  /** One charge attempt of an open invoice at `when`: paid, or declined (retry later, or cancel after the last). */
  const attemptCharge = async (tx: Tx, sub: StripeObject, inv: StripeObject, when: Date, emitted: StripeObject[]): Promise<void> => {
    const customer = await store.load(String(sub.customer), 'customer', tx);
    const attempts = Number(inv.attempt_count) + 1;
    const wasPastDue = sub.status === 'past_due';
    if (!cardDeclines(customer?.sandbox_card)) {
      const paid = { ...inv, status: 'paid', amount_paid: inv.amount_due, attempt_count: attempts, sandbox: {} };
      await store.save(tx, String(inv.id), 'invoice', paid);
      const active = { ...sub, status: 'active', latest_invoice: inv.id };
      await store.save(tx, String(sub.id), 'subscription', active);
      if (wasPastDue) emitted.push(await store.emit(tx, 'customer.subscription.updated', active, when));
      emitted.push(await store.emit(tx, 'invoice.paid', paid, when));
      return;
    }
    const failed = { ...inv, attempt_count: attempts, sandbox: { next_attempt: unix(new Date(when.getTime() + RETRY_INTERVAL_MS)) } };
    if (attempts >= MAX_ATTEMPTS) {
      await store.save(tx, String(inv.id), 'invoice', { ...failed, status: 'uncollectible', sandbox: {} });
      const ended = { ...sub, status: 'canceled', ended_at: unix(when), canceled_at: unix(when), cancellation_details: { reason: 'payment_failed' } };
      await store.save(tx, String(sub.id), 'subscription', ended);
      emitted.push(await store.emit(tx, 'invoice.payment_failed', failed, when));
      emitted.push(await store.emit(tx, 'customer.subscription.deleted', ended, when));
      return;
    }
    await store.save(tx, String(inv.id), 'invoice', failed);
    const pastDue = { ...sub, status: 'past_due', latest_invoice: inv.id };
    await store.save(tx, String(sub.id), 'subscription', pastDue);
    emitted.push(await store.emit(tx, 'invoice.payment_failed', failed, when));
    if (!wasPastDue) emitted.push(await store.emit(tx, 'customer.subscription.updated', pastDue, when));
  };

  /** The next thing due for one subscription at `now`, applied; false when nothing is due. */
  const stepOne = async (tx: Tx, subId: string, now: Date, emitted: StripeObject[]): Promise<boolean> => {
    const sub = await store.load(subId, 'subscription', tx);
    if (!sub || sub.status === 'canceled') return false;
    const item = itemOf(sub);
    const periodEnd = at(item.current_period_end);
    const trialEnd = sub.trial_end ? at(sub.trial_end) : null;

    // trial_will_end, once, three days ahead.
    if (sub.status === 'trialing' && trialEnd && !sandboxOf(sub).trial_will_end_sent && trialEnd.getTime() - TRIAL_WILL_END_MS <= now.getTime()) {
      const flagged = { ...sub, sandbox: { ...sandboxOf(sub), trial_will_end_sent: true } };
      await store.save(tx, subId, 'subscription', flagged);
      const when = new Date(Math.max(trialEnd.getTime() - TRIAL_WILL_END_MS, at(sub.created).getTime()));
      emitted.push(await store.emit(tx, 'customer.subscription.trial_will_end', flagged, when));
      return true;
    }

    // A charge attempt that has come due.
    const open = sub.latest_invoice ? await store.load(String(sub.latest_invoice), 'invoice', tx) : undefined;
    const nextAttempt = open && open.status === 'open' ? Number(sandboxOf(open).next_attempt ?? 0) : 0;
    if (open && nextAttempt > 0 && nextAttempt <= unix(now)) {
      await attemptCharge(tx, sub, open, at(nextAttempt), emitted);
      return true;
    }

    // The trial or period turns.
    if ((sub.status === 'trialing' || sub.status === 'active' || sub.status === 'past_due') && periodEnd <= now) {
      if (sub.cancel_at_period_end) {
        const ended = { ...sub, status: 'canceled', ended_at: unix(periodEnd), cancellation_details: { reason: 'cancellation_requested' } };
        await store.save(tx, subId, 'subscription', ended);
        emitted.push(await store.emit(tx, 'customer.subscription.deleted', ended, periodEnd));
        return true;
      }
      if (sub.status === 'past_due') {
        // Still unpaid when the next period would start: Stripe keeps retrying the old invoice; so does the sandbox.
        return false;
      }
      // A scheduled plan change takes effect at its phase boundary; the schedule is then released.
      let priceId = String((item.price as StripeObject).id);
      let schedule = sub.schedule ? await store.load(String(sub.schedule), 'subscription_schedule', tx) : undefined;
      if (schedule && schedule.status === 'active') {
        const next = (schedule.phases as StripeObject[]).find((p) => Number(p.start_date) === unix(periodEnd));
        if (next) priceId = String(((next.items as StripeObject[])[0]!).price);
        schedule = { ...schedule, status: 'released', released_at: unix(periodEnd) };
        await store.save(tx, String(schedule.id), 'subscription_schedule', schedule);
      }
      const price = await priceOf(priceId, tx);
      const nextEnd = addMonthUtc(periodEnd);
      const inv: StripeObject = { ...invoice(sub, price, Number(price.unit_amount), periodEnd, nextEnd, 'subscription_cycle', periodEnd), sandbox: { next_attempt: unix(new Date(periodEnd.getTime() + CHARGE_DELAY_MS)) } };
      await store.save(tx, String(inv.id), 'invoice', inv);
      const renewed = {
        ...sub,
        status: 'active',
        schedule: schedule && schedule.status === 'active' ? schedule.id : null,
        items: { object: 'list', data: [subscriptionItem(price, periodEnd, nextEnd)] },
        latest_invoice: inv.id,
      };
      await store.save(tx, subId, 'subscription', renewed);
      emitted.push(await store.emit(tx, 'customer.subscription.updated', renewed, periodEnd));
      return true;
    }
    return false;
  };

  let running: Promise<unknown> = Promise.resolve();
  /** Serialised: the ticker and a clock advance never run the cycle at once. */
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const next = running.then(work, work);
    running = next.catch(() => undefined);
    return next;
  };

  /** Runs everything due on the sandbox clock, then delivers the events in the order they fell due. */
  const runDue = (): Promise<number> =>
    exclusive(async () => {
      const now = clock.now();
      const emitted: StripeObject[] = [];
      for (const sub of await listOfType('subscription')) {
        for (let guard = 0; guard < 500; guard++) {
          const moved = await prisma.$transaction((tx) => stepOne(tx, String(sub.id), now, emitted));
          if (!moved) break;
        }
      }
      emitted.sort((a, b) => Number(a.created) - Number(b.created));
      await store.deliverAll(emitted);
      return emitted.length;
    });

  const latestSubscriptionOf = async (customerId: string): Promise<StripeObject | undefined> =>
    (await listOfType('subscription')).filter((s) => s.customer === customerId).at(-1);

  const setCancelAtPeriodEnd = async (subscriptionId: string): Promise<StripeObject> => {
    const emitted: StripeObject[] = [];
    const updated = await prisma.$transaction(async (tx) => {
      const sub = await store.load(subscriptionId, 'subscription', tx);
      if (!sub) throw new PaymentProviderError('not_found', `no sandbox subscription ${subscriptionId}`);
      if (sub.status === 'canceled' || sub.cancel_at_period_end) return sub;
      if (sub.schedule) {
        const schedule = await store.load(String(sub.schedule), 'subscription_schedule', tx);
        if (schedule) await store.save(tx, String(schedule.id), 'subscription_schedule', { ...schedule, status: 'released', released_at: unix(clock.now()) });
      }
      const next = { ...sub, schedule: null, cancel_at_period_end: true, canceled_at: unix(clock.now()), cancellation_details: { reason: 'cancellation_requested' } };
      await store.save(tx, subscriptionId, 'subscription', next);
      emitted.push(await store.emit(tx, 'customer.subscription.updated', next));
      return next;
    });
    await store.deliverAll(emitted);
    return updated;
  };

  return {
    runDue,

    async createSubscriptionCheckout(input: CreateSubscriptionCheckoutInput) {
      const existing = await prisma.sandboxObject.findFirst({ where: { type: 'checkout.session', data: { path: ['idempotency_key'], equals: input.idempotencyKey } } });
      if (existing) return checkoutSessionFromStripe(existing.data as StripeObject);
      const price = await priceOf(input.priceId);
      const id = store.randomId('cs_sandbox');
      const session: StripeObject = {
        id,
        object: 'checkout.session',
        mode: 'subscription',
        status: 'open',
        payment_status: 'unpaid',
        url: `${store.publicBaseUrl}/sandbox/checkout/${id}`,
        // Stripe's total for a trial checkout is 0: nothing is charged today.
        amount_total: input.trialDays ? 0 : price.unit_amount,
        currency: price.currency,
        client_reference_id: input.clientReferenceId,
        customer: input.customerId,
        customer_email: input.customerId ? null : input.customerEmail,
        metadata: input.metadata,
        subscription: null,
        payment_intent: null,
        expires_at: unix(input.expiresAt),
        created: unix(clock.now()),
        success_url: input.successUrl.replace('{CHECKOUT_SESSION_ID}', id),
        cancel_url: input.cancelUrl,
        description: `${String(price.product_name)}, US$${(Number(price.unit_amount) / 100).toFixed(2)} per month`,
        sandbox_price: price.id,
        subscription_data: { metadata: input.metadata, trial_period_days: input.trialDays },
        idempotency_key: input.idempotencyKey,
        livemode: false,
      };
      await store.save(prisma, id, 'checkout.session', session);
      return checkoutSessionFromStripe(session);
    },

    /**
     * The owner paid a subscription checkout (inside the caller's transaction): the customer (with the chosen
     * test card) and the subscription are created, trialing or paid at once; the events are returned to deliver.
     */
    async paySubscriptionCheckout(tx: Tx, session: StripeObject, card: string): Promise<{ paid: StripeObject; events: StripeObject[] }> {
      const now = clock.now();
      const data = session.subscription_data as StripeObject;
      const trialDays = Number(data.trial_period_days ?? 0);
      if (!trialDays && cardDeclines(card)) throw new PaymentProviderError('declined', 'the sandbox card 0341 declines charges');
      const price = await priceOf(String(session.sandbox_price), tx);
      const customerId = session.customer ? String(session.customer) : store.randomId('cus_sandbox');
      const customer = (await store.load(customerId, 'customer', tx)) ?? { id: customerId, object: 'customer', email: session.customer_email, created: unix(now) };
      await store.save(tx, customerId, 'customer', { ...customer, sandbox_card: card });

      const periodEnd = trialDays ? new Date(now.getTime() + trialDays * DAY_MS) : addMonthUtc(now);
      const subId = store.randomId('sub_sandbox');
      const sub: StripeObject = {
        id: subId,
        object: 'subscription',
        customer: customerId,
        status: trialDays ? 'trialing' : 'active',
        items: { object: 'list', data: [subscriptionItem(price, now, periodEnd)] },
        metadata: data.metadata,
        trial_start: trialDays ? unix(now) : null,
        trial_end: trialDays ? unix(periodEnd) : null,
        cancel_at_period_end: false,
        canceled_at: null,
        ended_at: null,
        cancellation_details: { reason: null },
        schedule: null,
        created: unix(now),
        livemode: false,
      };
      const first = invoice(sub, price, trialDays ? 0 : Number(price.unit_amount), now, periodEnd, 'subscription_create', now);
      const paidInvoice = { ...first, status: 'paid', amount_paid: first.amount_due, attempt_count: trialDays ? 0 : 1 };
      sub.latest_invoice = first.id;
      await store.save(tx, String(first.id), 'invoice', paidInvoice);
      await store.save(tx, subId, 'subscription', sub);
      const paid = { ...session, status: 'complete', payment_status: trialDays ? 'no_payment_required' : 'paid', customer: customerId, subscription: subId };
      await store.save(tx, String(session.id), 'checkout.session', paid);
      const events = [
        await store.emit(tx, 'customer.subscription.created', sub, now),
        await store.emit(tx, 'invoice.paid', paidInvoice, now),
        await store.emit(tx, 'checkout.session.completed', paid, now),
      ];
      return { paid, events };
    },

    async retrieveSubscription(id: string): Promise<ProviderSubscription | undefined> {
      const sub = await store.load(id, 'subscription');
      return sub ? subscriptionFromStripe(sub) : undefined;
    },

    async createPortalSession(input: { customerId: string; returnUrl: string }): Promise<string> {
      const id = store.randomId('bps_sandbox');
      const url = `${store.publicBaseUrl}/sandbox/portal/${id}`;
      await store.save(prisma, id, 'billing_portal.session', { id, object: 'billing_portal.session', customer: input.customerId, return_url: input.returnUrl, url, created: unix(clock.now()) });
      return url;
    },

    async schedulePlanChange(input: SchedulePlanChangeInput): Promise<ProviderSubscriptionSchedule> {
      const emitted: StripeObject[] = [];
      const schedule = await prisma.$transaction(async (tx) => {
        const sub = await store.load(input.subscriptionId, 'subscription', tx);
        if (!sub || sub.status === 'canceled') throw new PaymentProviderError('not_found', `no live sandbox subscription ${input.subscriptionId}`);
        const item = itemOf(sub);
        const existing = sub.schedule ? await store.load(String(sub.schedule), 'subscription_schedule', tx) : undefined;
        const id = existing && existing.status === 'active' ? String(existing.id) : store.randomId('sub_sched_sandbox');
        const next: StripeObject = {
          id,
          object: 'subscription_schedule',
          subscription: sub.id,
          status: 'active',
          end_behavior: 'release',
          phases: [
            { start_date: item.current_period_start, end_date: unix(input.changeAt), items: [{ price: input.currentPriceId, quantity: 1 }] },
            { start_date: unix(input.changeAt), end_date: unix(addMonthUtc(input.changeAt)), items: [{ price: input.newPriceId, quantity: 1 }] },
          ],
          created: existing?.created ?? unix(clock.now()),
        };
        await store.save(tx, id, 'subscription_schedule', next);
        const updated = { ...sub, schedule: id };
        await store.save(tx, String(sub.id), 'subscription', updated);
        emitted.push(await store.emit(tx, 'customer.subscription.updated', updated));
        return next;
      });
      await store.deliverAll(emitted);
      return scheduleFromStripe(schedule);
    },

    async cancelAtPeriodEnd(input: { subscriptionId: string }): Promise<ProviderSubscription> {
      return subscriptionFromStripe(await setCancelAtPeriodEnd(input.subscriptionId));
    },

    async *listSubscriptions(since: Date) {
      for (const sub of (await listOfType('subscription')).reverse()) if (at(sub.created) >= since) yield subscriptionFromStripe(sub);
    },

    async retrieveCardFingerprint(subscriptionId: string): Promise<string | null> {
      const sub = await store.load(subscriptionId, 'subscription');
      if (!sub) throw new PaymentProviderError('not_found', `no sandbox subscription ${subscriptionId}`);
      const customer = await store.load(String(sub.customer), 'customer');
      return typeof customer?.sandbox_card === 'string' ? sandboxCardFingerprint(customer.sandbox_card) : null;
    },

    /** As Stripe's trial_end `now`: the trial ends, the first period is invoiced at the full price and charged. */
    async endTrialNow(input: { subscriptionId: string }): Promise<void> {
      const emitted: StripeObject[] = [];
      await prisma.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT id FROM "billing"."sandbox_objects" WHERE id = ${input.subscriptionId} FOR UPDATE`;
        const sub = await store.load(input.subscriptionId, 'subscription', tx);
        if (!sub) throw new PaymentProviderError('not_found', `no sandbox subscription ${input.subscriptionId}`);
        if (sub.status !== 'trialing') return;
        const now = clock.now();
        const price = await priceOf(String((itemOf(sub).price as StripeObject).id), tx);
        const periodEnd = addMonthUtc(now);
        const inv = invoice(sub, price, Number(price.unit_amount), now, periodEnd, 'subscription_update', now);
        await store.save(tx, String(inv.id), 'invoice', inv);
        const ended = { ...sub, trial_end: unix(now), items: { object: 'list', data: [subscriptionItem(price, now, periodEnd)] }, latest_invoice: inv.id };
        await store.save(tx, input.subscriptionId, 'subscription', ended);
        await attemptCharge(tx, ended, inv, now, emitted);
        // attemptCharge announces a change of status only from past_due; this one is trialing → active or past_due.
        const after = (await store.load(input.subscriptionId, 'subscription', tx))!;
        if (after.status === 'active') emitted.unshift(await store.emit(tx, 'customer.subscription.updated', after, now));
      });
      await store.deliverAll(emitted);
    },

    async getPortal(id: string): Promise<SandboxPortalView | undefined> {
      const session = await store.load(id, 'billing_portal.session');
      if (!session) return undefined;
      const sub = await latestSubscriptionOf(String(session.customer));
      const customer = await store.load(String(session.customer), 'customer');
      if (!sub) return undefined;
      const item = itemOf(sub);
      const price = item.price as StripeObject;
      const full = await store.load(String(price.id), 'price');
      return {
        id,
        subscriptionId: String(sub.id),
        plan: String(((full?.metadata ?? {}) as StripeObject).plan ?? price.lookup_key ?? ''),
        status: String(sub.status),
        cancelAtPeriodEnd: sub.cancel_at_period_end === true,
        cardLast4: String(customer?.sandbox_card ?? '').slice(-4),
        renewsOrEndsAt: sub.status === 'canceled' ? (sub.ended_at ? at(sub.ended_at) : null) : at(item.current_period_end),
        returnUrl: String(session.return_url),
        priceCents: Number(price.unit_amount),
      };
    },

    /** The portal's buttons: a new card (an unpaid renewal is retried at once), or cancel at period end. */
    async portalAct(id: string, action: 'update_card' | 'cancel_at_period_end', card?: string): Promise<string> {
      const session = await store.load(id, 'billing_portal.session');
      if (!session) throw new PaymentProviderError('not_found', `no sandbox portal session ${id}`);
      const sub = await latestSubscriptionOf(String(session.customer));
      if (!sub) throw new PaymentProviderError('not_found', 'the customer has no subscription');
      if (action === 'cancel_at_period_end') {
        await setCancelAtPeriodEnd(String(sub.id));
      } else {
        const chosen = sandboxCard(card);
        await prisma.$transaction(async (tx) => {
          const customer = await store.load(String(session.customer), 'customer', tx);
          await store.save(tx, String(session.customer), 'customer', { ...customer, sandbox_card: chosen });
          const open = sub.latest_invoice ? await store.load(String(sub.latest_invoice), 'invoice', tx) : undefined;
          // Stripe retries an open invoice when the payment method changes: the next attempt is now.
          if (open && open.status === 'open') await store.save(tx, String(open.id), 'invoice', { ...open, sandbox: { next_attempt: unix(clock.now()) } });
        });
        await runDue();
      }
      logger.info({ portalSessionId: id, action }, 'sandbox portal action');
      return String(session.url);
    },
  };
}

export type SandboxSubscriptions = ReturnType<typeof createSandboxSubscriptions>;
