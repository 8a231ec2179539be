import Stripe from 'stripe';
import { WebhookVerificationError, type ProviderEvent } from './provider';
import { eventFromStripe } from './stripe-objects';

/** Stripe's default tolerance: a signature older than this is refused (replayed deliveries). */
const TOLERANCE_SECONDS = 300;

/**
 * Verifies a `Stripe-Signature` header over the exact raw bytes with the endpoint secret (HMAC-SHA256 with a
 * timestamp), then parses the event. Both providers use it: the sandbox signs its events the way Stripe does,
 * so the webhook endpoint has one code path.
 */
export function verifyStripeSignedEvent(payload: Buffer, signature: string, secret: string): ProviderEvent {
  let event: Record<string, unknown>;
  try {
    event = Stripe.webhooks.constructEvent(payload, signature, secret, TOLERANCE_SECONDS) as unknown as Record<string, unknown>;
  } catch (error) {
    throw new WebhookVerificationError((error as Error).message);
  }
  return eventFromStripe(event);
}

/** A `Stripe-Signature` header for this payload, as Stripe computes it (used by the sandbox provider). */
export function signStripePayload(payload: string, secret: string): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret });
}
