import type { ProviderCheckoutSession, ProviderEvent } from '../payments/provider';
import { checkoutSessionFromStripe, paymentIntentFromStripe } from '../payments/stripe-objects';

/**
 * What every provider object we create carries (Stripe metadata), so finance can find an agent's payments in
 * the dashboard and a confirmation can be fulfilled from the event alone. Values are strings (Stripe's rule).
 */
export interface PurchaseMetadata {
  purchase_kind: 'credit_pack';
  /** `checkout` or `shared_payment_token`: payment_intent.succeeded of a checkout is left to the session's events. */
  rail: 'checkout' | 'shared_payment_token';
  agent_id: string;
  pack: string;
  /** Credits sold: granted as sold even if the price list changes before payment. */
  credits: string;
  price_cents: string;
  /** DEPLOYMENT_ENVIRONMENT: events of another environment sharing the Stripe account are ignored. */
  environment: string;
  /** Our checkout_sessions row id (checkout rail). */
  checkout_id?: string;
}

export function purchaseMetadata(fields: Omit<PurchaseMetadata, 'purchase_kind'>): Record<string, string> {
  const metadata: Record<string, string> = { purchase_kind: 'credit_pack', ...fields };
  for (const [key, value] of Object.entries(metadata)) if (value === undefined) delete metadata[key];
  return metadata;
}

export interface PaidPurchase {
  agentId: number;
  pack: string;
  credits: number;
  amountCents: number;
  currency: string;
  checkoutSessionId: string | null;
  paymentIntentId: string | null;
  occurredAt: Date;
}

/** What a provider event means for credit purchases. */
export type PurchaseEvent =
  | { kind: 'paid'; purchase: PaidPurchase }
  /** A confirmed payment billing cannot show to be its own: stored, not applied, flagged for reconciliation. */
  | { kind: 'unverified'; purchase: PaidPurchase; reason: string }
  /** Completed with a delayed payment method: waiting for funds. */
  | { kind: 'processing'; checkoutSessionId: string }
  | { kind: 'failed'; checkoutSessionId: string }
  | { kind: 'expired'; checkoutSessionId: string }
  | { kind: 'ignored'; reason: string };

/** The event types this service acts on (the Stripe webhook endpoint should subscribe to exactly these). */
export const HANDLED_EVENT_TYPES = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
  'checkout.session.expired',
  'payment_intent.succeeded',
] as const;

/** Whether provider metadata marks one of this environment's credit purchases. */
export function isOurPurchase(metadata: Record<string, string>, environment: string): boolean {
  return metadata.purchase_kind === 'credit_pack' && metadata.environment === environment;
}

/** A checkout session whose money has arrived (card payments at completion; delayed methods later). */
export function isPaidCheckoutSession(session: Pick<ProviderCheckoutSession, 'status' | 'paymentStatus'>): boolean {
  return session.status === 'complete' && (session.paymentStatus === 'paid' || session.paymentStatus === 'no_payment_required');
}

function parseMetadata(metadata: Record<string, string>, environment: string): { agentId: number; pack: string; credits: number } | string {
  if (metadata.purchase_kind !== 'credit_pack') return 'not a credit purchase';
  if (!isOurPurchase(metadata, environment)) return `another environment (${metadata.environment ?? 'none'})`;
  const agentId = Number(metadata.agent_id);
  const credits = Number(metadata.credits);
  if (!Number.isSafeInteger(agentId) || agentId <= 0 || !Number.isSafeInteger(credits) || credits <= 0 || !metadata.pack) {
    return 'purchase metadata incomplete';
  }
  return { agentId, pack: metadata.pack, credits };
}

/** Interprets a verified provider event. Pure: the caller records and applies the result. */
export function interpretPurchaseEvent(event: ProviderEvent, environment: string): PurchaseEvent {
  if (event.type.startsWith('checkout.session.')) {
    return interpretCheckoutSession(event.type, checkoutSessionFromStripe(event.object), event.created, environment);
  }
  if (event.type === 'payment_intent.succeeded') {
    const intent = paymentIntentFromStripe(event.object);
    // Checkout payments are settled by their session's events; this one backs up the token rail (a crash
    // between the provider's confirmation and our inline grant).
    if (intent.metadata.rail !== 'shared_payment_token') return { kind: 'ignored', reason: 'payment intent of a checkout session' };
    const parsed = parseMetadata(intent.metadata, environment);
    if (typeof parsed === 'string') return { kind: 'ignored', reason: parsed };
    return {
      kind: 'paid',
      purchase: { ...parsed, amountCents: intent.amount, currency: intent.currency.toUpperCase(), checkoutSessionId: null, paymentIntentId: intent.id, occurredAt: event.created },
    };
  }
  return { kind: 'ignored', reason: `unused event type ${event.type}` };
}

/**
 * What a checkout session in a given event type means (the event interpreter's checkout half; the success URL
 * calls it with the session it retrieved, under the type that session's state implies).
 */
export function interpretCheckoutSession(type: string, session: ProviderCheckoutSession, occurredAt: Date, environment: string): PurchaseEvent {
  const parsed = parseMetadata(session.metadata, environment);
  if (typeof parsed === 'string') return { kind: 'ignored', reason: parsed };
  const paid = (): PurchaseEvent => ({
    kind: 'paid',
    purchase: {
      ...parsed,
      amountCents: session.amountTotal ?? 0,
      currency: (session.currency ?? 'usd').toUpperCase(),
      checkoutSessionId: session.id,
      paymentIntentId: session.paymentIntentId,
      occurredAt,
    },
  });
  switch (type) {
    case 'checkout.session.completed':
      return isPaidCheckoutSession(session) ? paid() : { kind: 'processing', checkoutSessionId: session.id };
    case 'checkout.session.async_payment_succeeded':
      return paid();
    case 'checkout.session.async_payment_failed':
      return { kind: 'failed', checkoutSessionId: session.id };
    case 'checkout.session.expired':
      return { kind: 'expired', checkoutSessionId: session.id };
    default:
      return { kind: 'ignored', reason: `unused event type ${type}` };
  }
}

/**
 * The ledger key of a purchase: one per checkout session (token rail: per payment intent), so however many
 * confirmations arrive (webhook, redelivery, the success URL, the reconciliation) the credits are granted once.
 */
export function purchaseLedgerKey(purchase: { checkoutSessionId: string | null; paymentIntentId: string | null }): string {
  if (purchase.checkoutSessionId) return `purchase:${purchase.checkoutSessionId}`;
  if (purchase.paymentIntentId) return `purchase:${purchase.paymentIntentId}`;
  throw new Error('a purchase needs a checkout session or payment intent id');
}
