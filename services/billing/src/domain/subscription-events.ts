import type { ProviderEvent, ProviderInvoice, ProviderSubscription } from '../payments/provider';
import { checkoutSessionFromStripe, invoiceFromStripe, subscriptionFromStripe } from '../payments/stripe-objects';

/**
 * What every subscription checkout and the subscription it creates carry (Stripe metadata, strings), so an
 * event can be tied to its agent and environment without a lookup.
 */
export interface SubscriptionMetadata {
  purchase_kind: 'subscription';
  rail: 'checkout';
  agent_id: string;
  /** The plan sold at checkout (a later scheduled change shows in the subscription's price, not here). */
  plan: string;
  price_cents: string;
  /** Trial days granted by this checkout (`0` for a returning subscriber). */
  trial_days: string;
  environment: string;
  /** Our subscription_checkouts row id. */
  checkout_id: string;
}

export function subscriptionMetadata(fields: Omit<SubscriptionMetadata, 'purchase_kind' | 'rail'>): Record<string, string> {
  return { purchase_kind: 'subscription', rail: 'checkout', ...fields };
}

/** The subscription event types billing acts on (the webhook endpoint subscribes to these and the purchase ones). */
export const SUBSCRIPTION_EVENT_TYPES = [
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.subscription.trial_will_end',
  'invoice.paid',
  'invoice.payment_failed',
] as const;

export type SubscriptionEvent =
  /** The owner completed a subscription checkout: the trial (or the paid plan) begins. */
  | { kind: 'checkout_completed'; agentId: number; plan: string; checkoutId: string; trialDays: number; checkoutSessionId: string; subscriptionId: string; customerId: string | null; amountCents: number }
  /** A subscription checkout expired unpaid: its slot and any trial it claimed are released. */
  | { kind: 'checkout_expired'; checkoutSessionId: string }
  /** The provider's state of the subscription at event time. */
  | { kind: 'snapshot'; agentId: number; subscription: ProviderSubscription }
  | { kind: 'invoice_paid'; agentId: number; invoice: ProviderInvoice }
  | { kind: 'invoice_failed'; agentId: number; invoice: ProviderInvoice }
  | { kind: 'trial_will_end'; agentId: number; subscriptionId: string; trialEnd: Date | null }
  | { kind: 'ignored'; reason: string };

/** Whether the event belongs to the subscription side (and not to credit purchases). */
export function isSubscriptionEvent(event: ProviderEvent): boolean {
  if (event.type.startsWith('checkout.session.')) return event.object.mode === 'subscription';
  return event.type.startsWith('customer.subscription.') || event.type.startsWith('invoice.');
}

function agentOf(metadata: Record<string, string>, environment: string): number | string {
  if (metadata.purchase_kind !== 'subscription') return 'not a CardLens subscription';
  if (metadata.environment !== environment) return `another environment (${metadata.environment ?? 'none'})`;
  const agentId = Number(metadata.agent_id);
  return Number.isSafeInteger(agentId) && agentId > 0 ? agentId : 'subscription metadata has no agent';
}

/** Interprets a verified provider event of the subscription side. Pure: the caller records and applies it. */
export function interpretSubscriptionEvent(event: ProviderEvent, environment: string): SubscriptionEvent {
  if (event.type.startsWith('checkout.session.')) {
    const session = checkoutSessionFromStripe(event.object);
    const agent = agentOf(session.metadata, environment);
    if (typeof agent === 'string') return { kind: 'ignored', reason: agent };
    if (event.type === 'checkout.session.expired') return { kind: 'checkout_expired', checkoutSessionId: session.id };
    if (event.type !== 'checkout.session.completed') return { kind: 'ignored', reason: `unused event type ${event.type}` };
    if (!session.subscriptionId) return { kind: 'ignored', reason: 'completed subscription checkout without a subscription' };
    return {
      kind: 'checkout_completed',
      agentId: agent,
      plan: session.metadata.plan ?? '',
      checkoutId: session.metadata.checkout_id ?? '',
      trialDays: Number(session.metadata.trial_days ?? 0) || 0,
      checkoutSessionId: session.id,
      subscriptionId: session.subscriptionId,
      customerId: session.customerId,
      amountCents: session.amountTotal ?? 0,
    };
  }
  if (event.type.startsWith('customer.subscription.')) {
    const subscription = subscriptionFromStripe(event.object);
    const agent = agentOf(subscription.metadata, environment);
    if (typeof agent === 'string') return { kind: 'ignored', reason: agent };
    if (event.type === 'customer.subscription.trial_will_end') return { kind: 'trial_will_end', agentId: agent, subscriptionId: subscription.id, trialEnd: subscription.trialEnd };
    if (!(SUBSCRIPTION_EVENT_TYPES as readonly string[]).includes(event.type)) return { kind: 'ignored', reason: `unused event type ${event.type}` };
    return { kind: 'snapshot', agentId: agent, subscription };
  }
  if (event.type === 'invoice.paid' || event.type === 'invoice.payment_failed') {
    const invoice = invoiceFromStripe(event.object);
    const agent = agentOf(invoice.metadata, environment);
    if (typeof agent === 'string') return { kind: 'ignored', reason: agent };
    if (!invoice.subscriptionId) return { kind: 'ignored', reason: 'invoice of no subscription' };
    return event.type === 'invoice.paid' ? { kind: 'invoice_paid', agentId: agent, invoice } : { kind: 'invoice_failed', agentId: agent, invoice };
  }
  return { kind: 'ignored', reason: `unused event type ${event.type}` };
}

/**
 * Tie-break for two snapshots stamped with the same second (Stripe's event times have second resolution):
 * the one further along the lifecycle wins, so `created` (trialing) never overwrites `updated` (active) or
 * `deleted` of the same second.
 */
const STATUS_RANK: Record<string, number> = { incomplete: 0, trialing: 1, active: 2, past_due: 3, unpaid: 4, paused: 4, incomplete_expired: 5, canceled: 6 };

export function snapshotRank(subscription: Pick<ProviderSubscription, 'status' | 'cancelAtPeriodEnd'>): number {
  return (STATUS_RANK[subscription.status] ?? 0) * 2 + (subscription.cancelAtPeriodEnd ? 1 : 0);
}

/** Whether a snapshot (version, rank) is at least as new as the kept one: only then is it applied. */
export function isNewerSnapshot(incoming: { version: Date; rank: number }, kept: { version: Date; rank: number } | null): boolean {
  if (!kept) return true;
  const dt = incoming.version.getTime() - kept.version.getTime();
  return dt > 0 || (dt === 0 && incoming.rank >= kept.rank);
}
