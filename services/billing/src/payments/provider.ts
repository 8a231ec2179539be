/**
 * The payment-provider port: the one seam between billing's purchase rules and whoever moves the money.
 * Two adapters: Stripe (stripe-provider.ts, production) and the local sandbox (sandbox-provider.ts, the
 * embedded default and tests, where no money moves). Shapes follow Stripe's objects, reduced to the fields
 * billing acts on; card and customer details never cross this port.
 */

export interface ProviderCheckoutSession {
  id: string;
  /** Stripe's session status. */
  status: 'open' | 'complete' | 'expired';
  paymentStatus: 'paid' | 'unpaid' | 'no_payment_required';
  url: string | null;
  amountTotal: number | null;
  currency: string | null;
  clientReferenceId: string | null;
  metadata: Record<string, string>;
  paymentIntentId: string | null;
  expiresAt: Date;
  created: Date;
  /** `payment` (credit packs) or `subscription` (grading plans). */
  mode: 'payment' | 'subscription' | 'setup';
  /** Subscription mode, once completed: the subscription and customer the provider created. */
  subscriptionId: string | null;
  customerId: string | null;
}

/** Stripe's subscription statuses. */
export type ProviderSubscriptionStatus = 'incomplete' | 'incomplete_expired' | 'trialing' | 'active' | 'past_due' | 'canceled' | 'unpaid' | 'paused';

/**
 * A subscription as the provider reports it. Since API version 2025-03-31 the period dates live on the
 * subscription items, not the subscription: these are the (single) item's.
 */
export interface ProviderSubscription {
  id: string;
  customerId: string | null;
  status: ProviderSubscriptionStatus;
  /** The (single) item's price. */
  priceId: string | null;
  metadata: Record<string, string>;
  trialStart: Date | null;
  trialEnd: Date | null;
  currentPeriodStart: Date | null;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  canceledAt: Date | null;
  endedAt: Date | null;
  /** Why it was cancelled: `cancellation_requested`, `payment_failed` or `payment_disputed`. */
  cancellationReason: string | null;
  /** The subscription schedule attached to it (a pending plan change), if any. */
  scheduleId: string | null;
  created: Date;
}

/** An invoice of a subscription, reduced to what allowance periods need. */
export interface ProviderInvoice {
  id: string;
  subscriptionId: string | null;
  customerId: string | null;
  /** draft, open, paid, uncollectible, void. */
  status: string;
  amountPaid: number;
  amountDue: number;
  currency: string;
  /** subscription_create, subscription_cycle, subscription_update, manual, ... */
  billingReason: string | null;
  /** The subscription line's service period (the period the payment buys). */
  periodStart: Date | null;
  periodEnd: Date | null;
  /** The subscription line's price. */
  priceId: string | null;
  /** The subscription's metadata as copied onto the invoice (parent.subscription_details.metadata). */
  metadata: Record<string, string>;
  attemptCount: number;
  created: Date;
}

export interface CreateSubscriptionCheckoutInput {
  idempotencyKey: string;
  priceId: string;
  /** Prefills the checkout and creates the customer with it; ignored when customerId is given. */
  customerEmail: string;
  /** The agent's existing provider customer (a returning subscriber), if any. */
  customerId: string | null;
  clientReferenceId: string;
  /** Written on the session and on the subscription it creates. */
  metadata: Record<string, string>;
  /** Trial days with the payment method required (first subscription only); null: charged at once. */
  trialDays: number | null;
  expiresAt: Date;
  successUrl: string;
  cancelUrl: string;
}

export interface SchedulePlanChangeInput {
  subscriptionId: string;
  /** The price that runs to `changeAt`, and the one after it. */
  currentPriceId: string;
  newPriceId: string;
  /** The current period end (or the trial end): where phase 2 begins. */
  changeAt: Date;
  idempotencyKey: string;
}

export interface ProviderSchedulePhase {
  priceId: string | null;
  start: Date;
  end: Date | null;
}

export interface ProviderSubscriptionSchedule {
  id: string;
  subscriptionId: string | null;
  /** not_started, active, completed, released, canceled. */
  status: string;
  phases: ProviderSchedulePhase[];
}

export interface ProviderPaymentIntent {
  id: string;
  /** succeeded, processing, requires_action, requires_payment_method, canceled, ... */
  status: string;
  amount: number;
  currency: string;
  metadata: Record<string, string>;
  created: Date;
}

/** A verified provider event: `object` is the event's data.object as the provider sent it. */
export interface ProviderEvent {
  id: string;
  type: string;
  created: Date;
  object: Record<string, unknown>;
}

export interface CreateCheckoutInput {
  /** Sent as the provider's idempotency key, so a retried creation never makes a second session. */
  idempotencyKey: string;
  /** The pack's catalog price (see stripe-catalog.ts); amountCents and productName repeat what it says. */
  priceId: string;
  amountCents: number;
  currency: 'usd';
  productName: string;
  /** The agent's provider customer: the payment is filed under it in the dashboard. */
  customerId: string;
  /** Where the provider sends the receipt; null when the agent's owner gave no email. */
  receiptEmail: string | null;
  clientReferenceId: string;
  metadata: Record<string, string>;
  expiresAt: Date;
  successUrl: string;
  cancelUrl: string;
}

/** A Product of the catalog, with an id of ours (`cardlens_<environment>_pack_<key>`), so it is made once. */
export interface EnsureProductInput {
  id: string;
  name: string;
  metadata: Record<string, string>;
}

export interface ProviderPrice {
  id: string;
  productId: string;
  lookupKey: string | null;
  unitAmount: number;
  currency: string;
  /** `month` for a plan's price, null for a one-time (pack) price. */
  interval: 'month' | null;
  active: boolean;
  metadata: Record<string, string>;
}

export interface CreatePriceInput {
  productId: string;
  lookupKey: string;
  amountCents: number;
  currency: 'usd';
  interval: 'month' | null;
  metadata: Record<string, string>;
  /** Moves the lookup key from the price holding it (a price change) instead of failing. */
  transferLookupKey: boolean;
  idempotencyKey: string;
}

export interface CreateCustomerInput {
  /** Per environment and agent: instances racing to create an agent's customer get one. */
  idempotencyKey: string;
  name: string;
  email: string | null;
  /** agent_id and environment: how the customer is found again (search) and read in the dashboard. */
  metadata: Record<string, string>;
}

/** A refund of a payment (Stripe's Refund), reduced to what the finance report shows. */
export interface ProviderRefund {
  id: string;
  paymentIntentId: string | null;
  amount: number;
  currency: string;
  /** pending, requires_action, succeeded, failed, canceled. */
  status: string;
  reason: string | null;
  created: Date;
}

/** A shared payment token granted to us (Stripe's SharedPaymentGrantedToken, preview). */
export interface GrantedToken {
  id: string;
  deactivated: boolean;
  /** Lower-case ISO 4217, e.g. `usd`. */
  currency: string;
  maxAmountCents: number;
  expiresAt: Date | null;
}

export interface TokenPaymentInput {
  tokenId: string;
  amountCents: number;
  currency: 'usd';
  metadata: Record<string, string>;
  idempotencyKey: string;
}

/**
 * `unavailable`: the provider could not be reached or failed (5xx, timeout): retry later.
 * `declined`: the payment method was refused. `invalid`: the provider refused the request (bad token, ...).
 * `not_found`: no such object.
 */
export type PaymentProviderErrorKind = 'unavailable' | 'declined' | 'invalid' | 'not_found';

export class PaymentProviderError extends Error {
  constructor(
    readonly kind: PaymentProviderErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PaymentProviderError';
  }
}

/** A webhook whose signature does not verify (or whose body is not an event). */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface PaymentProvider {
  readonly name: 'stripe' | 'sandbox';
  createCheckoutSession(input: CreateCheckoutInput): Promise<ProviderCheckoutSession>;
  /** undefined when the provider has no such session. */
  retrieveCheckoutSession(id: string): Promise<ProviderCheckoutSession | undefined>;
  /**
   * Ends an open session so its page can no longer be paid (Stripe's expire call; it emits
   * checkout.session.expired). A session that is already complete, expired or unknown is left as it is.
   */
  expireCheckoutSession(id: string): Promise<void>;
  /** undefined when the provider has no such payment intent. */
  retrievePaymentIntent(id: string): Promise<ProviderPaymentIntent | undefined>;
  /** Verifies the signature over the exact bytes, then parses. Throws WebhookVerificationError. */
  verifyWebhook(payload: Buffer, signature: string): ProviderEvent;
  /** Sessions created at or after `since`, newest first. */
  listCheckoutSessions(since: Date): AsyncIterable<ProviderCheckoutSession>;
  /** Payment intents created at or after `since`, newest first. */
  listPaymentIntents(since: Date): AsyncIterable<ProviderPaymentIntent>;
  /** Events of these types created at or after `since`, newest first (Stripe keeps 30 days). */
  listEvents(types: readonly string[], since: Date): AsyncIterable<ProviderEvent>;
  retrieveGrantedToken(id: string): Promise<GrantedToken>;
  /** Creates and confirms a PaymentIntent paid with the granted token. */
  confirmTokenPayment(input: TokenPaymentInput): Promise<ProviderPaymentIntent>;

  // --- Subscriptions ---

  // Plans' recurring prices are catalog prices (createPrice below, use-cases/sync-catalog.ts).
  /** A `subscription`-mode hosted checkout (trial with the payment method required, or charged at once). */
  createSubscriptionCheckout(input: CreateSubscriptionCheckoutInput): Promise<ProviderCheckoutSession>;
  /** undefined when the provider has no such subscription. */
  retrieveSubscription(id: string): Promise<ProviderSubscription | undefined>;
  /** A billing-portal session for the customer (payment method, cancel at period end). Returns its URL. */
  createPortalSession(input: { customerId: string; returnUrl: string }): Promise<string>;
  /**
   * Schedules the price change for `changeAt` with a subscription schedule (phase 1: the current price to
   * changeAt, phase 2: the new price, then released to a plain subscription). Updating the subscription's
   * price directly would change it at once, with proration. Replaces an earlier pending change.
   */
  schedulePlanChange(input: SchedulePlanChangeInput): Promise<ProviderSubscriptionSchedule>;
  /**
   * Stops renewals: releases a schedule (dropping a pending plan change) and sets cancel_at_period_end, so
   * the subscription ends at the trial or period end.
   */
  cancelAtPeriodEnd(input: { subscriptionId: string; idempotencyKey: string }): Promise<ProviderSubscription>;
  /** Subscriptions created at or after `since`, newest first (reconciliation). */
  listSubscriptions(since: Date): AsyncIterable<ProviderSubscription>;
  /**
   * The provider's fingerprint of the card paying the subscription (its default payment method): the same
   * card gives the same fingerprint on any customer. null when it has no card payment method.
   */
  retrieveCardFingerprint(subscriptionId: string): Promise<string | null>;
  /**
   * Ends a trialing subscription's trial now (Stripe: trial_end `now`): the first period is invoiced and
   * charged at once. A subscription not trialing is left as it is.
   */
  endTrialNow(input: { subscriptionId: string; idempotencyKey: string }): Promise<void>;

  // --- Catalog, customers and refunds (finance's view of the account) ---

  /** Creates the product with this id, or renames it when its name changed. Says what it did. */
  ensureProduct(input: EnsureProductInput): Promise<'created' | 'updated' | 'unchanged'>;
  /** The active price holding this lookup key, if any. */
  findPriceByLookupKey(lookupKey: string): Promise<ProviderPrice | undefined>;
  createPrice(input: CreatePriceInput): Promise<ProviderPrice>;
  /** Archives a price: no new checkout can use it; what was bought with it is untouched. */
  deactivatePrice(id: string): Promise<void>;
  /** The customer whose metadata names this agent in this environment (found by search), if any. */
  findCustomer(agentId: number, environment: string): Promise<string | undefined>;
  createCustomer(input: CreateCustomerInput): Promise<string>;
  updateCustomerEmail(customerId: string, email: string): Promise<void>;
  /** Refunds created at or after `since`, newest first. */
  listRefunds(since: Date): AsyncIterable<ProviderRefund>;
}
