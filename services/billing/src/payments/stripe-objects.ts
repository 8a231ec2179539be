import { WebhookVerificationError, type ProviderCheckoutSession, type ProviderEvent, type ProviderPaymentIntent } from './provider';

// Stripe's JSON objects (as the API, webhooks and the sandbox write them) reduced to the port's shapes.
export type StripeObject = Record<string, unknown>;

export const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const idOf = (value: unknown): string | null =>
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
