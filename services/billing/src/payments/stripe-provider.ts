import Stripe from 'stripe';
import {
  checkoutSessionFromStripe,
  eventFromStripe,
  fromUnix,
  idOf,
  paymentIntentFromStripe,
  priceFromStripe,
  refundFromStripe,
  scheduleFromStripe,
  str,
  subscriptionFromStripe,
  type StripeObject,
} from './stripe-objects';
import { verifyStripeSignedEvent } from './webhook-signature';
import {
  PaymentProviderError,
  type CreateCheckoutInput,
  type CreateCustomerInput,
  type CreatePriceInput,
  type EnsureProductInput,
  type CreateSubscriptionCheckoutInput,
  type GrantedToken,
  type PaymentProvider,
  type ProviderEvent,
  type SchedulePlanChangeInput,
  type TokenPaymentInput,
} from './provider';

/**
 * The Stripe API version this code was written against, pinned so a library or account upgrade never changes
 * the shapes we parse. It is the version stripe-node 23 was generated for.
 */
export const STRIPE_API_VERSION = '2026-10-28.endive';

/**
 * Default API version for the shared payment token calls (private preview, absent from the GA stripe package).
 * Assumed, from Stripe's preview reference of 2026-04-22: GET /v1/shared_payment/granted_tokens/{id} returns
 * `{ id, deactivated_at, deactivated_reason, usage_limits: { currency, max_amount, expires_at } }`, and
 * POST /v1/payment_intents accepts `payment_method_data[shared_payment_granted_token]` with `confirm=true`.
 * STRIPE_SPT_API_VERSION overrides it when Stripe moves the preview.
 */
export const DEFAULT_SPT_API_VERSION = '2026-04-22.preview';

export interface StripeProviderOptions {
  secretKey: string;
  webhookSecret: string;
  /** Tests point the client at a fake Stripe server (e.g. http://127.0.0.1:12111); production leaves it unset. */
  apiBaseUrl?: string;
  timeoutMs: number;
  sptApiVersion: string;
}

/** Maps stripe-node's errors onto the port's kinds; messages stay in our logs, never in client responses. */
function providerError(error: unknown, what: string): PaymentProviderError {
  if (error instanceof PaymentProviderError) return error;
  const e = error as { type?: string; statusCode?: number; code?: string; message?: string };
  const detail = `${what}: ${e.type ?? 'error'}${e.code ? ` (${e.code})` : ''}${e.statusCode ? ` HTTP ${e.statusCode}` : ''}`;
  if (e.type === 'StripeCardError') return new PaymentProviderError('declined', detail, { cause: error });
  if (e.statusCode === 404) return new PaymentProviderError('not_found', detail, { cause: error });
  if (e.type === 'StripeInvalidRequestError' || e.type === 'StripeIdempotencyError') return new PaymentProviderError('invalid', detail, { cause: error });
  return new PaymentProviderError('unavailable', detail, { cause: error });
}

export function createStripeProvider(options: StripeProviderOptions): PaymentProvider {
  const base = options.apiBaseUrl ? new URL(options.apiBaseUrl) : undefined;
  const stripe = new Stripe(options.secretKey, {
    apiVersion: STRIPE_API_VERSION as Stripe.StripeConfig['apiVersion'],
    timeout: options.timeoutMs,
    // Idempotency keys make retries safe; stripe-node retries connection errors and 5xx/409 with backoff.
    maxNetworkRetries: 2,
    appInfo: { name: 'cardlens-billing' },
    telemetry: false,
    ...(base
      ? { host: base.hostname, port: Number(base.port || (base.protocol === 'https:' ? 443 : 80)), protocol: base.protocol.replace(':', '') as 'http' | 'https' }
      : {}),
  });

  /** Stripe's auto-pagination (100 per page) over a list call, mapped to the port's shape. */
  async function* list<T>(what: string, page: AsyncIterable<unknown>, map: (o: StripeObject) => T): AsyncIterable<T> {
    try {
      for await (const object of page) yield map(object as StripeObject);
    } catch (error) {
      throw providerError(error, `list ${what}`);
    }
  }
  const unix = (date: Date): number => Math.floor(date.getTime() / 1000);
  const createdSince = (since: Date) => ({ created: { gte: unix(since) }, limit: 100 });

  const retrieveSubscriptionObject = async (id: string): Promise<StripeObject> =>
    (await stripe.subscriptions.retrieve(id)) as unknown as StripeObject;

  return {
    name: 'stripe',

    async createCheckoutSession(input: CreateCheckoutInput) {
      try {
        const session = await stripe.checkout.sessions.create(
          {
            mode: 'payment',
            // The catalog's price (one Product per pack), not inline price_data: a product per checkout otherwise.
            line_items: [{ price: input.priceId, quantity: 1 }],
            customer: input.customerId,
            client_reference_id: input.clientReferenceId,
            metadata: input.metadata,
            // The PaymentIntent (and so the charge finance sees in the dashboard) carries the same metadata;
            // receipt_email makes Stripe email the receipt whatever the account's customer-email settings.
            payment_intent_data: { metadata: input.metadata, ...(input.receiptEmail ? { receipt_email: input.receiptEmail } : {}) },
            // A paid invoice (numbered, downloadable PDF, emailed with the receipt) per purchase, for bookkeeping.
            invoice_creation: { enabled: true, invoice_data: { description: input.productName, metadata: input.metadata } },
            expires_at: Math.floor(input.expiresAt.getTime() / 1000),
            success_url: input.successUrl,
            cancel_url: input.cancelUrl,
          },
          { idempotencyKey: input.idempotencyKey },
        );
        return checkoutSessionFromStripe(session as unknown as StripeObject);
      } catch (error) {
        throw providerError(error, 'create checkout session');
      }
    },

    async retrieveCheckoutSession(id: string) {
      try {
        return checkoutSessionFromStripe((await stripe.checkout.sessions.retrieve(id)) as unknown as StripeObject);
      } catch (error) {
        const mapped = providerError(error, 'retrieve checkout session');
        if (mapped.kind === 'not_found') return undefined;
        throw mapped;
      }
    },

    async expireCheckoutSession(id: string) {
      try {
        await stripe.checkout.sessions.expire(id);
      } catch (error) {
        const mapped = providerError(error, 'expire checkout session');
        // Stripe refuses to expire a session that is no longer open (paid meanwhile: its confirmation grants it).
        if (mapped.kind === 'not_found' || mapped.kind === 'invalid') return;
        throw mapped;
      }
    },

    async retrievePaymentIntent(id: string) {
      try {
        return paymentIntentFromStripe((await stripe.paymentIntents.retrieve(id)) as unknown as StripeObject);
      } catch (error) {
        const mapped = providerError(error, 'retrieve payment intent');
        if (mapped.kind === 'not_found') return undefined;
        throw mapped;
      }
    },

    verifyWebhook: (payload: Buffer, signature: string): ProviderEvent => verifyStripeSignedEvent(payload, signature, options.webhookSecret),

    listCheckoutSessions: (since) => list('checkout sessions', stripe.checkout.sessions.list(createdSince(since)), checkoutSessionFromStripe),
    listPaymentIntents: (since) => list('payment intents', stripe.paymentIntents.list(createdSince(since)), paymentIntentFromStripe),
    listEvents: (types, since) => list('events', stripe.events.list({ ...createdSince(since), types: [...types] }), eventFromStripe),

    async retrieveGrantedToken(id: string): Promise<GrantedToken> {
      let token: StripeObject;
      try {
        token = (await stripe.rawRequest('GET', `/v1/shared_payment/granted_tokens/${encodeURIComponent(id)}`, undefined, { apiVersion: options.sptApiVersion })) as StripeObject;
      } catch (error) {
        throw providerError(error, 'retrieve granted token');
      }
      const limits = (token.usage_limits ?? {}) as StripeObject;
      return {
        id: String(token.id),
        deactivated: token.deactivated_at != null,
        currency: str(limits.currency) ?? '',
        maxAmountCents: Number(limits.max_amount ?? 0),
        expiresAt: limits.expires_at != null ? fromUnix(limits.expires_at) : null,
      };
    },

    async confirmTokenPayment(input: TokenPaymentInput) {
      try {
        const intent = (await stripe.rawRequest(
          'POST',
          '/v1/payment_intents',
          {
            amount: input.amountCents,
            currency: input.currency,
            confirm: true,
            payment_method_data: { shared_payment_granted_token: input.tokenId },
            metadata: input.metadata,
          },
          { apiVersion: options.sptApiVersion, idempotencyKey: input.idempotencyKey },
        )) as StripeObject;
        return paymentIntentFromStripe(intent);
      } catch (error) {
        throw providerError(error, 'confirm token payment');
      }
    },

    async createSubscriptionCheckout(input: CreateSubscriptionCheckoutInput) {
      try {
        const session = await stripe.checkout.sessions.create(
          {
            mode: 'subscription',
            line_items: [{ price: input.priceId, quantity: 1 }],
            client_reference_id: input.clientReferenceId,
            metadata: input.metadata,
            // The subscription (and so its invoices' parent.subscription_details) carries the same metadata.
            subscription_data: { metadata: input.metadata, ...(input.trialDays ? { trial_period_days: input.trialDays } : {}) },
            // A card is collected even for a trial, so the first charge at the trial end can happen.
            payment_method_collection: 'always',
            ...(input.customerId ? { customer: input.customerId } : { customer_email: input.customerEmail }),
            expires_at: unix(input.expiresAt),
            success_url: input.successUrl,
            cancel_url: input.cancelUrl,
          },
          { idempotencyKey: input.idempotencyKey },
        );
        return checkoutSessionFromStripe(session as unknown as StripeObject);
      } catch (error) {
        throw providerError(error, 'create subscription checkout');
      }
    },

    async retrieveSubscription(id: string) {
      try {
        return subscriptionFromStripe(await retrieveSubscriptionObject(id));
      } catch (error) {
        const mapped = providerError(error, 'retrieve subscription');
        if (mapped.kind === 'not_found') return undefined;
        throw mapped;
      }
    },

    async createPortalSession(input: { customerId: string; returnUrl: string }) {
      try {
        return (await stripe.billingPortal.sessions.create({ customer: input.customerId, return_url: input.returnUrl })).url;
      } catch (error) {
        throw providerError(error, 'create portal session');
      }
    },

    async schedulePlanChange(input: SchedulePlanChangeInput) {
      try {
        const subscription = await retrieveSubscriptionObject(input.subscriptionId);
        const existingId = idOf(subscription.schedule);
        // No explicit key on the create: a retry finds the schedule on the subscription instead (and Stripe
        // refuses a second schedule from the same subscription).
        const schedule = (
          existingId
            ? await stripe.subscriptionSchedules.retrieve(existingId)
            : await stripe.subscriptionSchedules.create({ from_subscription: input.subscriptionId })
        ) as unknown as StripeObject;
        // Stripe refuses to move the current phase's start, so phase 1 restates it.
        const current = (schedule.current_phase ?? (schedule.phases as StripeObject[] | undefined)?.[0] ?? {}) as StripeObject;
        const changeAt = unix(input.changeAt);
        const trialEnd = subscription.status === 'trialing' && typeof subscription.trial_end === 'number' && subscription.trial_end <= changeAt ? subscription.trial_end : undefined;
        const updated = await stripe.subscriptionSchedules.update(
          String(schedule.id),
          {
            end_behavior: 'release',
            proration_behavior: 'none',
            phases: [
              {
                items: [{ price: input.currentPriceId, quantity: 1 }],
                start_date: Number(current.start_date),
                end_date: changeAt,
                // Omitting it would end a running trial at once.
                ...(trialEnd !== undefined ? { trial_end: trialEnd } : {}),
              },
              { items: [{ price: input.newPriceId, quantity: 1 }], duration: { interval: 'month', interval_count: 1 } },
            ],
          },
          { idempotencyKey: input.idempotencyKey },
        );
        return scheduleFromStripe(updated as unknown as StripeObject);
      } catch (error) {
        throw providerError(error, 'schedule plan change');
      }
    },

    async cancelAtPeriodEnd(input: { subscriptionId: string; idempotencyKey: string }) {
      try {
        const subscription = await retrieveSubscriptionObject(input.subscriptionId);
        const scheduleId = idOf(subscription.schedule);
        if (scheduleId) {
          // Stripe refuses cancellation changes on a schedule-managed subscription; releasing keeps the
          // subscription and drops the pending plan change.
          const schedule = await stripe.subscriptionSchedules.retrieve(scheduleId);
          if (schedule.status === 'active' || schedule.status === 'not_started') {
            await stripe.subscriptionSchedules.release(scheduleId, {}, { idempotencyKey: `${input.idempotencyKey}:release` });
          }
        }
        const updated = await stripe.subscriptions.update(input.subscriptionId, { cancel_at_period_end: true }, { idempotencyKey: input.idempotencyKey });
        return subscriptionFromStripe(updated as unknown as StripeObject);
      } catch (error) {
        throw providerError(error, 'cancel subscription at period end');
      }
    },

    listSubscriptions: (since) => list('subscriptions', stripe.subscriptions.list({ ...createdSince(since), status: 'all' }), subscriptionFromStripe),

    async retrieveCardFingerprint(subscriptionId: string) {
      try {
        // Checkout sets the subscription's default payment method; the customer's default is the fallback.
        const subscription = (await stripe.subscriptions.retrieve(subscriptionId, {
          expand: ['default_payment_method', 'customer.invoice_settings.default_payment_method'],
        })) as unknown as StripeObject;
        const customer = subscription.customer as StripeObject | string | null;
        const fromCustomer = typeof customer === 'object' && customer ? (customer.invoice_settings as StripeObject | undefined)?.default_payment_method : null;
        const method = (subscription.default_payment_method ?? fromCustomer) as StripeObject | string | null | undefined;
        const card = typeof method === 'object' && method ? (method.card as StripeObject | undefined) : undefined;
        return typeof card?.fingerprint === 'string' ? card.fingerprint : null;
      } catch (error) {
        throw providerError(error, 'retrieve card fingerprint');
      }
    },

    async endTrialNow(input: { subscriptionId: string; idempotencyKey: string }) {
      try {
        const subscription = await retrieveSubscriptionObject(input.subscriptionId);
        if (subscription.status !== 'trialing') return;
        // Invoices the first period and charges the default payment method now.
        await stripe.subscriptions.update(input.subscriptionId, { trial_end: 'now', proration_behavior: 'none' }, { idempotencyKey: input.idempotencyKey });
      } catch (error) {
        throw providerError(error, 'end trial now');
      }
    },

    async ensureProduct(input: EnsureProductInput) {
      try {
        let product: Stripe.Product | undefined;
        try {
          product = await stripe.products.retrieve(input.id);
        } catch (error) {
          if (providerError(error, 'retrieve product').kind !== 'not_found') throw error;
        }
        if (!product) {
          await stripe.products.create({ id: input.id, name: input.name, metadata: input.metadata }, { idempotencyKey: `product:${input.id}` });
          return 'created';
        }
        if (product.name === input.name && product.active) return 'unchanged';
        await stripe.products.update(input.id, { name: input.name, active: true, metadata: input.metadata });
        return 'updated';
      } catch (error) {
        throw providerError(error, 'ensure product');
      }
    },

    async findPriceByLookupKey(lookupKey: string) {
      try {
        const found = await stripe.prices.list({ lookup_keys: [lookupKey], active: true, limit: 1 });
        return found.data[0] ? priceFromStripe(found.data[0] as unknown as StripeObject) : undefined;
      } catch (error) {
        throw providerError(error, 'find price');
      }
    },

    async createPrice(input: CreatePriceInput) {
      try {
        const price = await stripe.prices.create(
          {
            product: input.productId,
            currency: input.currency,
            unit_amount: input.amountCents,
            lookup_key: input.lookupKey,
            ...(input.transferLookupKey ? { transfer_lookup_key: true } : {}),
            ...(input.interval ? { recurring: { interval: input.interval } } : {}),
            metadata: input.metadata,
          },
          { idempotencyKey: input.idempotencyKey },
        );
        return priceFromStripe(price as unknown as StripeObject);
      } catch (error) {
        throw providerError(error, 'create price');
      }
    },

    async deactivatePrice(id: string) {
      try {
        await stripe.prices.update(id, { active: false });
      } catch (error) {
        throw providerError(error, 'deactivate price');
      }
    },

    async findCustomer(agentId: number, environment: string) {
      try {
        // Search lags writes by about a minute: the customers table and the idempotency key cover that gap.
        const found = await stripe.customers.search({ query: `metadata['agent_id']:'${agentId}' AND metadata['environment']:'${environment}'`, limit: 1 });
        return found.data[0]?.id;
      } catch (error) {
        throw providerError(error, 'find customer');
      }
    },

    async createCustomer(input: CreateCustomerInput) {
      try {
        const customer = await stripe.customers.create(
          { name: input.name, ...(input.email ? { email: input.email } : {}), metadata: input.metadata },
          { idempotencyKey: input.idempotencyKey },
        );
        return customer.id;
      } catch (error) {
        throw providerError(error, 'create customer');
      }
    },

    async updateCustomerEmail(customerId: string, email: string) {
      try {
        await stripe.customers.update(customerId, { email });
      } catch (error) {
        throw providerError(error, 'update customer');
      }
    },

    listRefunds: (since) => list('refunds', stripe.refunds.list(createdSince(since)), refundFromStripe),
  };
}
