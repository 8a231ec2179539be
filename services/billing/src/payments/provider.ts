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
  amountCents: number;
  currency: 'usd';
  productName: string;
  clientReferenceId: string;
  metadata: Record<string, string>;
  expiresAt: Date;
  successUrl: string;
  cancelUrl: string;
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
}
