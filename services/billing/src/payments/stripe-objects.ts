import {
  WebhookVerificationError,
  type ProviderCheckoutSession,
  type ProviderEvent,
  type ProviderInvoice,
  type ProviderPaymentIntent,
  type ProviderPrice,
  type ProviderRefund,
  type ProviderSubscription,
  type ProviderSubscriptionSchedule,
  type ProviderSubscriptionStatus,
} from './provider';

// Stripe's JSON objects (as the API, webhooks and the sandbox write them) reduced to the port's shapes.
export type StripeObject = Record<string, unknown>;

export const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
export const idOf = (value: unknown): string | null =>
  typeof value === 'string' ? value : value && typeof value === 'object' ? str((value as StripeObject).id) : null;
export const fromUnix = (value: unknown): Date => new Date(Number(value ?? 0) * 1000);
const metadataOf = (value: unknown): Record<string, string> =>
  value && typeof value === 'object' ? Object.fromEntries(Object.entries(value as StripeObject).map(([k, v]) => [k, String(v)])) : {};

export function checkoutSessionFromStripe(object: StripeObject): ProviderCheckoutSession {
  return {
    id: String(object.id),
    status: (str(object.status) ?? 'open') as ProviderCheckoutSession['status'],
    paymentStatus: (str(object.payment_status) ?? 'unpaid') as ProviderCheckoutSession['paymentStatus'],
    url: str(object.url),
    amountTotal: typeof object.amount_total === 'number' ? object.amount_total : null,
    currency: str(object.currency),
    clientReferenceId: str(object.client_reference_id),
    metadata: metadataOf(object.metadata),
    paymentIntentId: idOf(object.payment_intent),
    expiresAt: fromUnix(object.expires_at),
    created: fromUnix(object.created),
    mode: (str(object.mode) ?? 'payment') as ProviderCheckoutSession['mode'],
    subscriptionId: idOf(object.subscription),
    customerId: idOf(object.customer),
  };
}

const optionalDate = (value: unknown): Date | null => (typeof value === 'number' && value > 0 ? fromUnix(value) : null);
const firstOf = (list: unknown): StripeObject | undefined => {
  const data = list && typeof list === 'object' ? (list as StripeObject).data : undefined;
  return Array.isArray(data) && data[0] && typeof data[0] === 'object' ? (data[0] as StripeObject) : undefined;
};

export function subscriptionFromStripe(object: StripeObject): ProviderSubscription {
  const item = firstOf(object.items);
  return {
    id: String(object.id),
    customerId: idOf(object.customer),
    status: (str(object.status) ?? 'incomplete') as ProviderSubscriptionStatus,
    priceId: item ? idOf(item.price) : null,
    metadata: metadataOf(object.metadata),
    trialStart: optionalDate(object.trial_start),
    trialEnd: optionalDate(object.trial_end),
    // Since 2025-03-31 (basil) the period is on the items; older payloads still carry it on the subscription.
    currentPeriodStart: optionalDate(item?.current_period_start ?? object.current_period_start),
    currentPeriodEnd: optionalDate(item?.current_period_end ?? object.current_period_end),
    cancelAtPeriodEnd: object.cancel_at_period_end === true,
    canceledAt: optionalDate(object.canceled_at),
    endedAt: optionalDate(object.ended_at),
    cancellationReason: str(((object.cancellation_details ?? {}) as StripeObject).reason),
    scheduleId: idOf(object.schedule),
    created: fromUnix(object.created),
  };
}

export function invoiceFromStripe(object: StripeObject): ProviderInvoice {
  const parent = (object.parent ?? {}) as StripeObject;
  const details = (parent.subscription_details ?? {}) as StripeObject;
  // The subscription's line (not a one-off invoice item): its period is the period the payment buys.
  const lines = ((object.lines as StripeObject | undefined)?.data ?? []) as StripeObject[];
  const line = lines.find((l) => ((l.parent as StripeObject | undefined)?.type ?? 'subscription_item_details') === 'subscription_item_details') ?? lines[0];
  const period = (line?.period ?? {}) as StripeObject;
  const priceDetails = ((line?.pricing as StripeObject | undefined)?.price_details ?? {}) as StripeObject;
  return {
    id: String(object.id),
    subscriptionId: idOf(details.subscription) ?? idOf(object.subscription),
    customerId: idOf(object.customer),
    status: str(object.status) ?? 'draft',
    amountPaid: Number(object.amount_paid ?? 0),
    amountDue: Number(object.amount_due ?? 0),
    currency: str(object.currency) ?? 'usd',
    billingReason: str(object.billing_reason),
    periodStart: optionalDate(period.start),
    periodEnd: optionalDate(period.end),
    priceId: idOf(priceDetails.price) ?? idOf(line?.price),
    metadata: metadataOf(details.metadata ?? (object.subscription_details as StripeObject | undefined)?.metadata),
    attemptCount: Number(object.attempt_count ?? 0),
    created: fromUnix(object.created),
  };
}

export function scheduleFromStripe(object: StripeObject): ProviderSubscriptionSchedule {
  const phases = (Array.isArray(object.phases) ? object.phases : []) as StripeObject[];
  return {
    id: String(object.id),
    subscriptionId: idOf(object.subscription),
    status: str(object.status) ?? 'active',
    phases: phases.map((phase) => {
      const items = (Array.isArray(phase.items) ? phase.items : []) as StripeObject[];
      return { priceId: items[0] ? idOf(items[0].price) : null, start: fromUnix(phase.start_date), end: optionalDate(phase.end_date) };
    }),
  };
}

export function paymentIntentFromStripe(object: StripeObject): ProviderPaymentIntent {
  return {
    id: String(object.id),
    status: str(object.status) ?? 'unknown',
    amount: Number(object.amount ?? 0),
    currency: str(object.currency) ?? '',
    metadata: metadataOf(object.metadata),
    created: fromUnix(object.created),
  };
}

export function eventFromStripe(event: StripeObject): ProviderEvent {
  const data = (event.data ?? {}) as StripeObject;
  if (typeof event.id !== 'string' || typeof event.type !== 'string' || !data.object || typeof data.object !== 'object') {
    throw new WebhookVerificationError('the body is not a provider event');
  }
  return { id: event.id, type: event.type, created: fromUnix(event.created), object: data.object as StripeObject };
}

export function priceFromStripe(object: StripeObject): ProviderPrice {
  const recurring = (object.recurring ?? null) as StripeObject | null;
  return {
    id: String(object.id),
    productId: idOf(object.product) ?? '',
    lookupKey: str(object.lookup_key),
    unitAmount: Number(object.unit_amount ?? 0),
    currency: str(object.currency) ?? 'usd',
    interval: recurring?.interval === 'month' ? 'month' : null,
    active: object.active !== false,
    metadata: metadataOf(object.metadata),
  };
}

export function refundFromStripe(object: StripeObject): ProviderRefund {
  return {
    id: String(object.id),
    paymentIntentId: idOf(object.payment_intent),
    amount: Number(object.amount ?? 0),
    currency: str(object.currency) ?? '',
    status: str(object.status) ?? 'unknown',
    reason: str(object.reason),
    created: fromUnix(object.created),
  };
}
