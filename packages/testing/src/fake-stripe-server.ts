/**
 * FakeStripeServer: a FAKE of the parts of Stripe's HTTP API that billing calls, for tests of the code around
 * Stripe, which cannot be called from here (no network, and tests must never touch the real Stripe). stripe-node
 * is pointed at it with `host`/`port`/`protocol: 'http'`, so the real client library does the encoding,
 * parsing, errors, idempotency keys and pagination. In-memory; failure injection for outages.
 *
 * Served: checkout sessions (create with idempotency, retrieve, list, expire), events (list, retrieve),
 * payment intents (create-and-confirm with a shared payment token, retrieve, list) and shared payment granted
 * tokens (retrieve). Tests drive what the payer does with completeCheckoutSession, asyncPaymentSucceeded, ...,
 * and time with clock.advance (open sessions then expire as they would at Stripe).
 *
 * Finance's catalog: customers (create, update, search by metadata terms), products with ids of ours (create,
 * retrieve, update), prices (line items by `price` in `payment` mode, `transfer_lookup_key`, archiving) and
 * refunds (create, list; refundPayment does what finance does in the dashboard).
 *
 * Subscriptions, in the shapes of API version 2025-03-31 (basil) and later (period dates on the subscription
 * item, invoices' subscription under parent.subscription_details): prices (list by lookup key, create with
 * product_data), `subscription`-mode checkout sessions (completed by completeSubscriptionCheckout), subscriptions
 * (retrieve, list, update cancel_at_period_end), billing-portal sessions and subscription schedules (create
 * from_subscription, retrieve, update phases, release). The billing cycle itself (renewals, trial ends, retries)
 * is not simulated: subscriptions stay as created until a request changes them.
 *
 * stripe-node 23 retries a reset connection once even with maxNetworkRetries 0 (and keys every POST for it), so
 * `failNext({ mode: 'reset' })` needs a count one above the client's retries to surface StripeConnectionError.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import qs from 'qs';
import Stripe from 'stripe';

type Json = Record<string, unknown>;

export type TokenOutcome = 'succeeded' | 'requires_action' | 'processing' | 'canceled' | 'declined';

export interface FailureInjection {
  /** How many matching requests fail (default 1). */
  count?: number;
  /** HTTP status of an `error` failure (default 500). */
  status?: number;
  /** Matched against "METHOD /path" (default: every request). */
  match?: RegExp;
  /** `error`: an api_error answer; `hang`: never answers; `reset`: the connection is destroyed. */
  mode?: 'error' | 'hang' | 'reset';
}

/** What completeSubscriptionCheckout created, and the events it recorded (in the order recorded). */
export interface CompletedSubscriptionCheckout {
  session: Json;
  customer: Json;
  subscription: Json;
  /** The first invoice: the first period's charge, or $0 for the trial. */
  invoice: Json;
  events: { checkoutCompleted: Json; subscriptionCreated: Json; invoicePaid: Json; all: Json[] };
}

export interface RecordedRequest {
  method: string;
  path: string;
  params: Json;
  headers: Record<string, string | string[] | undefined>;
}

const rid = (prefix: string): string => `${prefix}_${randomBytes(18).toString('base64url').replace(/[-_]/g, 'x').slice(0, 24)}`;
const DAY_SECONDS = 86_400;

/** Calendar months later in UTC, clamped to the month's last day (Jan 31 → Feb 28/29), as Stripe bills. */
function addMonths(seconds: number, months: number): number {
  const date = new Date(seconds * 1000);
  const day = date.getUTCDate();
  date.setUTCDate(1);
  date.setUTCMonth(date.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  date.setUTCDate(Math.min(day, lastDay));
  return Math.floor(date.getTime() / 1000);
}

/** The end of `count` recurring intervals from `start`, or undefined for an interval Stripe does not have. */
function afterIntervals(start: number, interval: unknown, count: number): number | undefined {
  if (interval === 'day') return start + count * DAY_SECONDS;
  if (interval === 'week') return start + count * 7 * DAY_SECONDS;
  if (interval === 'month') return addMonths(start, count);
  if (interval === 'year') return addMonths(start, 12 * count);
  return undefined;
}

const missing = (what: string): [number, Json] => [404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${what}` } }];
const invalid = (message: string, param?: string): [number, Json] => [400, { error: { type: 'invalid_request_error', message, ...(param ? { param } : {}) } }];
/** A parameter naming an object that does not exist: a 400 at Stripe, not a 404. */
const noSuchParam = (what: string, param: string): [number, Json] => [400, { error: { type: 'invalid_request_error', code: 'resource_missing', param, message: `No such ${what}` } }];
const itemOf = (subscription: Json): Json => ((subscription.items as Json).data as Json[])[0]!;
const isLive = (schedule: Json): boolean => schedule.status === 'active' || schedule.status === 'not_started';

export class FakeStripeServer {
  readonly requests: RecordedRequest[] = [];
  private sessions = new Map<string, Json>();
  private intents = new Map<string, Json>();
  private events: Json[] = [];
  private tokens = new Map<string, { token: Json; outcome: TokenOutcome }>();
  /** payment_intent_data[metadata] per session: Stripe puts it on the intent, not on the session. */
  private intentMetadata = new Map<string, Json>();
  private prices = new Map<string, Json>();
  private products = new Map<string, Json>();
  private customers = new Map<string, Json>();
  private refunds = new Map<string, Json>();
  /** payment_intent_data[receipt_email] per session (Stripe puts it on the intent). */
  private receiptEmails = new Map<string, string>();
  private subscriptions = new Map<string, Json>();
  /** Card payment methods made by completed subscription checkouts; a card's fingerprint is stable per number. */
  private paymentMethods = new Map<string, Json>();
  private schedules = new Map<string, Json>();
  /** The price and subscription_data of a `subscription`-mode session: Stripe keeps them off the session object. */
  private subscriptionCheckouts = new Map<string, { price: string; quantity: number; subscriptionData: Json }>();
  private idempotent = new Map<string, { params: string; status: number; body: Json }>();
  private failures: (FailureInjection & { left: number })[] = [];
  private offsetSeconds = 0;
  private frozenAt: number | null = null;
  private readonly sockets = new Set<Socket>();

  /**
   * The fake's clock: `advance` moves Stripe's "now" forward, so open sessions can pass their expires_at.
   * `freeze` stops it at the current second until `reset`, for tests that reason about exact seconds
   * (otherwise the wall clock may tick between a request and the assertion on it).
   */
  readonly clock = {
    now: (): number => (this.frozenAt ?? Math.floor(Date.now() / 1000)) + this.offsetSeconds,
    advance: (seconds: number): void => {
      this.offsetSeconds += seconds;
    },
    freeze: (): void => {
      this.frozenAt ??= Math.floor(Date.now() / 1000);
    },
  };

  private constructor(private readonly server: Server, readonly port: number) {}

  static async start(): Promise<FakeStripeServer> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const address = server.address();
    const fake = new FakeStripeServer(server, typeof address === 'object' && address ? address.port : 0);
    server.on('connection', (socket) => {
      fake.sockets.add(socket);
      socket.on('close', () => fake.sockets.delete(socket));
    });
    server.on('request', (req, res) => void fake.handle(req, res));
    return fake;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  clientOptions(): { host: string; port: number; protocol: 'http' } {
    return { host: '127.0.0.1', port: this.port, protocol: 'http' };
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  reset(): void {
    this.requests.length = 0;
    this.sessions.clear();
    this.intents.clear();
    this.events = [];
    this.tokens.clear();
    this.intentMetadata.clear();
    this.prices.clear();
    this.products.clear();
    this.customers.clear();
    this.refunds.clear();
    this.receiptEmails.clear();
    this.subscriptions.clear();
    this.paymentMethods.clear();
    this.schedules.clear();
    this.subscriptionCheckouts.clear();
    this.idempotent.clear();
    this.failures = [];
    this.offsetSeconds = 0;
    this.frozenAt = null;
  }

  /** Same as clock.now() (unix seconds). */
  now(): number {
    return this.clock.now();
  }

  /** Same as clock.advance(seconds). */
  advance(seconds: number): void {
    this.clock.advance(seconds);
  }

  failNext(injection: FailureInjection = {}): void {
    this.failures.push({ ...injection, left: injection.count ?? 1 });
  }

  addGrantedToken(options: { id?: string; maxAmount: number; currency?: string; expiresAt?: number | null; deactivated?: boolean; outcome: TokenOutcome }): string {
    const id = options.id ?? rid('spt');
    const token = {
      id,
      object: 'shared_payment.granted_token',
      created: this.now(),
      livemode: false,
      deactivated_at: options.deactivated ? this.now() : null,
      deactivated_reason: options.deactivated ? 'revoked' : null,
      usage_limits: { currency: options.currency ?? 'usd', max_amount: options.maxAmount, expires_at: options.expiresAt === undefined ? this.now() + 3600 : options.expiresAt },
    };
    this.tokens.set(id, { token, outcome: options.outcome });
    return id;
  }

  session(id: string): Json | undefined {
    const session = this.sessions.get(id);
    return session ? this.observe(session) : undefined;
  }

  /** The payer finished checkout: `paid` (card) or `unpaid` (a delayed method such as a bank debit). */
  completeCheckoutSession(id: string, options: { paymentStatus: 'paid' | 'unpaid' }): Json {
    const session = this.mustSession(id);
    const metadata = this.intentMetadata.get(id) ?? {};
    const intent = this.createIntent(Number(session.amount_total), String(session.currency), metadata, options.paymentStatus === 'paid' ? 'succeeded' : 'processing', {
      customer: session.customer ?? null,
      receipt_email: this.receiptEmails.get(id) ?? null,
    });
    Object.assign(session, { status: 'complete', payment_status: options.paymentStatus, payment_intent: intent.id });
    return this.emit('checkout.session.completed', session);
  }

  asyncPaymentSucceeded(id: string): Json {
    const session = this.mustSession(id);
    session.payment_status = 'paid';
    const intent = this.intents.get(String(session.payment_intent));
    if (intent) intent.status = 'succeeded';
    return this.emit('checkout.session.async_payment_succeeded', session);
  }

  asyncPaymentFailed(id: string): Json {
    const session = this.mustSession(id);
    session.payment_status = 'unpaid';
    // As at Stripe: the failed debit sends the intent back for another payment method.
    const intent = this.intents.get(String(session.payment_intent));
    if (intent) intent.status = 'requires_payment_method';
    return this.emit('checkout.session.async_payment_failed', session);
  }

  expireCheckoutSession(id: string): Json {
    const session = this.mustSession(id);
    session.status = 'expired';
    return this.emit('checkout.session.expired', session);
  }

  /** A customer, as a returning subscriber's checkout would name it (`customer`). */
  addCustomer(options: { email?: string | null } = {}): string {
    return String(this.createCustomer(options.email ?? null).id);
  }

  customer(id: string): Json | undefined {
    return this.customers.get(id);
  }

  product(id: string): Json | undefined {
    return this.products.get(id);
  }

  price(id: string): Json | undefined {
    return this.prices.get(id);
  }

  paymentIntent(id: string): Json | undefined {
    return this.intents.get(id);
  }

  /** Finance refunded (part of) a payment in the dashboard: a succeeded refund and its events. */
  refundPayment(paymentIntentId: string, options: { amount?: number; reason?: string } = {}): Json {
    const intent = this.intents.get(paymentIntentId);
    if (!intent) throw new Error(`fake Stripe: no payment intent ${paymentIntentId}`);
    const refund = {
      id: rid('re'),
      object: 'refund',
      amount: options.amount ?? intent.amount,
      currency: intent.currency,
      payment_intent: intent.id,
      charge: null,
      status: 'succeeded',
      reason: options.reason ?? 'requested_by_customer',
      metadata: {},
      created: this.now(),
    };
    this.refunds.set(refund.id, refund);
    this.emit('refund.created', refund);
    return structuredClone(refund);
  }

  subscription(id: string): Json | undefined {
    return this.subscriptions.get(id);
  }

  subscriptionSchedule(id: string): Json | undefined {
    return this.schedules.get(id);
  }

  /**
   * The payer finished a `subscription`-mode checkout with a card: creates the customer (unless the session
   * named one), the subscription (trialing with subscription_data[trial_period_days], else active and charged)
   * and its first invoice, paid ($0 for a trial). Records checkout.session.completed,
   * customer.subscription.created and invoice.paid, and returns copies of what it created.
   */
  completeSubscriptionCheckout(id: string, options: { email?: string; card?: string } = {}): CompletedSubscriptionCheckout {
    const session = this.observe(this.mustSession(id));
    const checkout = this.subscriptionCheckouts.get(id);
    if (!checkout) throw new Error(`fake Stripe: checkout session ${id} is not in subscription mode`);
    if (session.status !== 'open') throw new Error(`fake Stripe: checkout session ${id} is ${String(session.status)}`);
    const price = this.prices.get(checkout.price)!;
    const customer = session.customer
      ? this.customers.get(String(session.customer))!
      : this.createCustomer(options.email ?? (session.customer_email as string | null) ?? null);
    const now = this.now();
    const trialDays = Number(checkout.subscriptionData.trial_period_days ?? 0);
    const trialEnd = trialDays > 0 ? now + trialDays * DAY_SECONDS : null;
    const recurring = price.recurring as Json;
    // During a trial the item's period is the trial.
    const periodEnd = trialEnd ?? afterIntervals(now, recurring.interval, Number(recurring.interval_count ?? 1))!;
    const subscriptionId = rid('sub');
    const paymentMethod = this.createCardPaymentMethod(String(customer.id), options.card ?? '4242424242424242');
    customer.invoice_settings = { ...((customer.invoice_settings as Json | undefined) ?? {}), default_payment_method: paymentMethod.id };
    const item = {
      id: rid('si'),
      object: 'subscription_item',
      subscription: subscriptionId,
      price: structuredClone(price),
      quantity: checkout.quantity,
      current_period_start: now,
      current_period_end: periodEnd,
      metadata: {},
      created: now,
    };
    const metadata = { ...((checkout.subscriptionData.metadata ?? {}) as Json) };
    const subscription: Json = {
      id: subscriptionId,
      object: 'subscription',
      customer: customer.id,
      status: trialEnd ? 'trialing' : 'active',
      items: { object: 'list', data: [item], has_more: false, total_count: 1, url: `/v1/subscription_items?subscription=${subscriptionId}` },
      metadata,
      currency: price.currency,
      collection_method: 'charge_automatically',
      trial_start: trialEnd ? now : null,
      trial_end: trialEnd,
      start_date: now,
      billing_cycle_anchor: trialEnd ?? now,
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
      ended_at: null,
      cancellation_details: { reason: null, comment: null, feedback: null },
      schedule: null,
      latest_invoice: null,
      default_payment_method: paymentMethod.id,
      created: now,
      livemode: false,
    };
    const amount = trialEnd ? 0 : Number(price.unit_amount) * checkout.quantity;
    const invoice = this.createInvoice(subscription, item, { amount, periodStart: now, periodEnd, billingReason: 'subscription_create' });
    subscription.latest_invoice = invoice.id;
    this.subscriptions.set(subscriptionId, subscription);
    Object.assign(session, {
      status: 'complete',
      payment_status: trialEnd ? 'no_payment_required' : 'paid',
      subscription: subscriptionId,
      customer: customer.id,
      invoice: invoice.id,
    });
    const checkoutCompleted = this.emit('checkout.session.completed', session);
    const subscriptionCreated = this.emit('customer.subscription.created', subscription);
    const invoicePaid = this.emit('invoice.paid', invoice);
    return structuredClone({
      session,
      customer,
      subscription,
      invoice,
      events: { checkoutCompleted, subscriptionCreated, invoicePaid, all: [checkoutCompleted, subscriptionCreated, invoicePaid] },
    });
  }

  /** Drops an event from the events list (Stripe keeps 30 days of them). */
  forgetEvent(id: string): void {
    this.events = this.events.filter((e) => e.id !== id);
  }

  /** The event as Stripe would deliver it to a webhook endpoint with this signing secret. */
  signedWebhook(event: Json, secret: string): { payload: string; signature: string } {
    const payload = JSON.stringify(event);
    return { payload, signature: Stripe.webhooks.generateTestHeaderString({ payload, secret }) };
  }

  // -------------------------------------------------------------------------------------------------------

  private mustSession(id: string): Json {
    const session = this.sessions.get(id);
    if (!session) throw new Error(`fake Stripe: no checkout session ${id}`);
    return session;
  }

  /** An open session past its expiry reads as expired, and emits `checkout.session.expired` once. */
  private observe(session: Json): Json {
    if (session.status === 'open' && Number(session.expires_at) <= this.now()) {
      session.status = 'expired';
      this.emit('checkout.session.expired', session);
    }
    return session;
  }

  private createCustomer(email: string | null, fields: { name?: unknown; metadata?: unknown } = {}): Json {
    const customer = { id: rid('cus'), object: 'customer', email, name: fields.name ?? null, metadata: fields.metadata ?? {}, created: this.now(), livemode: false };
    this.customers.set(customer.id, customer);
    return customer;
  }

  /** A paid invoice of the subscription with one subscription-item line (basil shape: `parent`, `pricing`). */
  private createInvoice(subscription: Json, item: Json, bill: { amount: number; periodStart: number; periodEnd: number; billingReason: string }): Json {
    const price = item.price as Json;
    const now = this.now();
    const id = rid('in');
    const line = {
      id: rid('il'),
      object: 'line_item',
      invoice: id,
      amount: bill.amount,
      currency: price.currency,
      quantity: item.quantity,
      period: { start: bill.periodStart, end: bill.periodEnd },
      pricing: { type: 'price_details', price_details: { price: price.id, product: price.product }, unit_amount_decimal: String(price.unit_amount) },
      parent: {
        type: 'subscription_item_details',
        invoice_item_details: null,
        subscription_item_details: { subscription: subscription.id, subscription_item: item.id, invoice_item: null, proration: false, proration_details: { credited_items: null } },
      },
      metadata: {},
    };
    return {
      id,
      object: 'invoice',
      customer: subscription.customer,
      status: 'paid',
      amount_due: bill.amount,
      amount_paid: bill.amount,
      amount_remaining: 0,
      currency: price.currency,
      billing_reason: bill.billingReason,
      // A $0 invoice is paid without a charge attempt.
      attempt_count: bill.amount > 0 ? 1 : 0,
      attempted: bill.amount > 0,
      collection_method: 'charge_automatically',
      parent: { type: 'subscription_details', quote_details: null, subscription_details: { subscription: subscription.id, metadata: { ...(subscription.metadata as Json) } } },
      lines: { object: 'list', data: [line], has_more: false, total_count: 1, url: `/v1/invoices/${id}/lines` },
      status_transitions: { finalized_at: now, paid_at: now, marked_uncollectible_at: null, voided_at: null },
      created: now,
      livemode: false,
    };
  }

  private emit(type: string, object: Json, previousAttributes?: Json): Json {
    const event = {
      id: rid('evt'),
      object: 'event',
      type,
      created: this.now(),
      api_version: '2026-10-28.endive',
      livemode: false,
      pending_webhooks: 1,
      request: { id: null },
      data: { object: structuredClone(object), ...(previousAttributes ? { previous_attributes: structuredClone(previousAttributes) } : {}) },
    };
    this.events.unshift(event);
    return event;
  }

  private createIntent(amount: number, currency: string, metadata: Json, status: string, extra: Json = {}): Json {
    const intent = { id: rid('pi'), object: 'payment_intent', amount, currency, status, metadata: { ...metadata }, customer: null, receipt_email: null, created: this.now(), livemode: false, latest_charge: null, ...extra };
    this.intents.set(String(intent.id), intent);
    return intent;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', this.baseUrl);
    const method = req.method ?? 'GET';
    const raw = method === 'GET' ? url.search.slice(1) : Buffer.concat(chunks).toString('utf8');
    const params = qs.parse(raw, { depth: 10, arrayLimit: 100 }) as Json;
    this.requests.push({ method, path: url.pathname, params, headers: req.headers });

    const failure = this.failures.find((f) => f.left > 0 && (!f.match || f.match.test(`${method} ${url.pathname}`)));
    if (failure) {
      failure.left--;
      this.failures = this.failures.filter((f) => f.left > 0);
      if (failure.mode === 'hang') return;
      if (failure.mode === 'reset') {
        req.socket.destroy();
        return;
      }
      return send(res, failure.status ?? 500, { error: { type: 'api_error', message: 'Injected failure (fake Stripe).' } });
    }
    if (!String(req.headers.authorization ?? '').startsWith('Bearer sk_')) {
      return send(res, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } });
    }

    const key = req.headers['idempotency-key'];
    const idempotencyKey = typeof key === 'string' && method === 'POST' ? `${url.pathname}|${key}` : undefined;
    if (idempotencyKey) {
      const seen = this.idempotent.get(idempotencyKey);
      if (seen) {
        if (seen.params !== raw) {
          return send(res, 400, { error: { type: 'idempotency_error', message: 'Keys for idempotent requests can only be used with the same parameters they were first used with.' } });
        }
        return send(res, seen.status, seen.body);
      }
    }
    const [status, body] = this.route(method, url.pathname, params);
    // Stripe saves the result once the endpoint ran: successes and declines, not validation errors or 5xx.
    if (idempotencyKey && (status < 400 || status === 402)) this.idempotent.set(idempotencyKey, { params: raw, status, body });
    send(res, status, body);
  }

  private route(method: string, path: string, params: Json): [number, Json] {
    let m: RegExpMatchArray | null;

    if (method === 'POST' && path === '/v1/checkout/sessions') {
      const expiresAt = Number(params.expires_at ?? this.now() + 86_400);
      if (expiresAt < this.now() + 1800 - 60 || expiresAt > this.now() + 86_400 + 60) {
        return invalid('The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.');
      }
      const items = (params.line_items ?? []) as Json[];
      let amount = items.reduce((sum, item) => sum + Number((item.price_data as Json | undefined)?.unit_amount ?? 0) * Number(item.quantity ?? 1), 0);
      let currency: unknown = (items[0]?.price_data as Json | undefined)?.currency ?? 'usd';
      if (params.customer !== undefined && params.customer_email !== undefined) return invalid('You may only specify one of these parameters: customer, customer_email.');
      if (params.customer !== undefined && !this.customers.has(String(params.customer))) return noSuchParam(`customer: '${String(params.customer)}'`, 'customer');
      if (params.invoice_creation !== undefined && params.mode !== 'payment') return invalid('`invoice_creation` can only be used in `payment` mode.', 'invoice_creation');
      if (params.mode === 'payment') {
        for (const [i, item] of items.entries()) {
          if (item.price === undefined) continue;
          const price = this.prices.get(String(item.price));
          if (!price) return noSuchParam(`price: '${String(item.price)}'`, `line_items[${i}][price]`);
          if (!price.active) return invalid('The price specified is inactive. This field only accepts active prices.', `line_items[${i}][price]`);
          if (price.recurring) return invalid('You must provide at least one recurring price in `subscription` mode when using prices.', 'mode');
          amount += Number(price.unit_amount) * Number(item.quantity ?? 1);
          currency = price.currency;
        }
      }
      let subscriptionCheckout: { price: string; quantity: number; subscriptionData: Json } | undefined;
      if (params.mode === 'subscription') {
        const checked = this.subscriptionCheckoutOf(params, items);
        if (Array.isArray(checked)) return checked;
        subscriptionCheckout = checked;
        const price = this.prices.get(checked.price)!;
        // A trial's checkout charges nothing today.
        amount = checked.subscriptionData.trial_period_days ? 0 : Number(price.unit_amount) * checked.quantity;
        currency = price.currency;
      }
      const id = rid('cs_test');
      const session = {
        id,
        object: 'checkout.session',
        mode: params.mode,
        status: 'open',
        payment_status: 'unpaid',
        url: `${this.baseUrl}/c/pay/${id}`,
        amount_total: amount,
        currency,
        client_reference_id: params.client_reference_id ?? null,
        metadata: params.metadata ?? {},
        payment_intent: null,
        customer: params.customer ?? null,
        customer_email: params.customer_email ?? null,
        subscription: null,
        invoice: null,
        payment_method_collection: params.payment_method_collection ?? 'always',
        invoice_creation: params.invoice_creation ? { enabled: (params.invoice_creation as Json).enabled === 'true', invoice_data: (params.invoice_creation as Json).invoice_data ?? {} } : null,
        expires_at: expiresAt,
        created: this.now(),
        success_url: String(params.success_url ?? '').replace('{CHECKOUT_SESSION_ID}', id),
        cancel_url: params.cancel_url ?? null,
        livemode: false,
      };
      this.sessions.set(id, session);
      this.intentMetadata.set(id, { ...((params.payment_intent_data as Json | undefined)?.metadata as Json | undefined) });
      const receiptEmail = (params.payment_intent_data as Json | undefined)?.receipt_email;
      if (typeof receiptEmail === 'string') this.receiptEmails.set(id, receiptEmail);
      if (subscriptionCheckout) this.subscriptionCheckouts.set(id, subscriptionCheckout);
      return [200, session];
    }
    if (method === 'GET' && path === '/v1/checkout/sessions') {
      return this.list(path, [...this.sessions.values()].map((s) => this.observe(s)).reverse(), params, (s) => !params.status || s.status === params.status);
    }
    if ((m = path.match(/^\/v1\/checkout\/sessions\/([^/]+)(\/expire)?$/)) && method === (m[2] ? 'POST' : 'GET')) {
      const session = this.sessions.get(m[1]!);
      if (!session) return missing(`checkout.session: '${m[1]}'`);
      this.observe(session);
      if (m[2]) {
        if (session.status !== 'open') return invalid(`Only Checkout Sessions with a status in ["open"] can be expired.`);
        session.status = 'expired';
        this.emit('checkout.session.expired', session);
      }
      return [200, session];
    }
    if (method === 'GET' && path === '/v1/events') {
      const types = params.types ? (params.types as string[]) : params.type ? [String(params.type)] : undefined;
      // `type` may end in `.*` (e.g. checkout.session.*), as at Stripe.
      const wanted = (type: string) => !types || types.some((t) => (t.endsWith('.*') ? type.startsWith(t.slice(0, -1)) : type === t));
      return this.list(path, this.events, params, (e) => wanted(String(e.type)));
    }
    if ((m = path.match(/^\/v1\/events\/([^/]+)$/)) && method === 'GET') {
      const event = this.events.find((e) => e.id === m![1]);
      return event ? [200, event] : missing(`event: '${m[1]}'`);
    }
    if ((m = path.match(/^\/v1\/shared_payment\/granted_tokens\/([^/]+)$/)) && method === 'GET') {
      const token = this.tokens.get(m[1]!);
      return token ? [200, token.token] : missing(`shared_payment.granted_token: '${m[1]}'`);
    }
    if (method === 'POST' && path === '/v1/payment_intents') {
      const tokenId = String((params.payment_method_data as Json | undefined)?.shared_payment_granted_token ?? '');
      const token = this.tokens.get(tokenId);
      if (!token || token.token.deactivated_at) return invalid(`The shared payment granted token '${tokenId}' cannot be used.`);
      // The token's usage limits bind at Stripe too, whatever the caller checked beforehand.
      const limits = token.token.usage_limits as { currency: string; max_amount: number; expires_at: number | null };
      if (limits.expires_at !== null && limits.expires_at <= this.now()) return invalid(`The shared payment granted token '${tokenId}' has expired.`);
      if (String(params.currency) !== limits.currency || Number(params.amount) > limits.max_amount) {
        return invalid(`The payment exceeds the usage limits of the shared payment granted token '${tokenId}'.`);
      }
      if (token.outcome === 'declined') {
        return [402, { error: { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' } }];
      }
      const intent = this.createIntent(Number(params.amount), String(params.currency), (params.metadata ?? {}) as Json, token.outcome);
      if (token.outcome === 'succeeded') this.emit('payment_intent.succeeded', intent);
      return [200, intent];
    }
    if (method === 'GET' && path === '/v1/payment_intents') return this.list(path, [...this.intents.values()].reverse(), params, () => true);
    if ((m = path.match(/^\/v1\/payment_intents\/([^/]+)$/)) && method === 'GET') {
      const intent = this.intents.get(m[1]!);
      return intent ? [200, intent] : missing(`payment_intent: '${m[1]}'`);
    }
    const served = this.routeCatalog(method, path, params) ?? this.routeSubscriptions(method, path, params);
    if (served) return served;
    return [404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` } }];
  }

  /** Customers (create, search by metadata, retrieve, update), products, price updates and refunds. */
  private routeCatalog(method: string, path: string, params: Json): [number, Json] | undefined {
    let m: RegExpMatchArray | null;
    if (method === 'POST' && path === '/v1/customers') {
      return [200, this.createCustomer(typeof params.email === 'string' ? params.email : null, { name: params.name, metadata: params.metadata })];
    }
    if (method === 'GET' && path === '/v1/customers/search') {
      // The fake understands `metadata['key']:'value'` terms joined by AND, as billing writes them.
      const terms = [...String(params.query ?? '').matchAll(/metadata\['([^']+)'\]:'([^']*)'/g)].map((t) => [t[1]!, t[2]!] as const);
      if (!terms.length) return invalid('The fake serves customer searches on metadata terms only.', 'query');
      const data = [...this.customers.values()].reverse().filter((c) => terms.every(([k, v]) => (c.metadata as Json)[k] === v));
      return [200, { object: 'search_result', url: path, has_more: false, next_page: null, data: data.slice(0, Number(params.limit ?? 10)) }];
    }
    if ((m = path.match(/^\/v1\/customers\/([^/]+)$/))) {
      const customer = this.customers.get(m[1]!);
      if (!customer) return missing(`customer: '${m[1]}'`);
      if (method === 'GET') return [200, customer];
      if (method === 'POST') {
        if (params.email !== undefined) customer.email = params.email === '' ? null : params.email;
        if (params.name !== undefined) customer.name = params.name;
        if (params.metadata !== undefined) customer.metadata = { ...(customer.metadata as Json), ...(params.metadata as Json) };
        return [200, customer];
      }
    }
    if (method === 'POST' && path === '/v1/products') {
      if (typeof params.name !== 'string') return invalid('Missing required param: name.', 'name');
      const id = typeof params.id === 'string' ? params.id : rid('prod');
      if (this.products.has(id)) return [400, { error: { type: 'invalid_request_error', code: 'resource_already_exists', param: 'id', message: 'Product already exists.' } }];
      const product = { id, object: 'product', name: params.name, active: params.active !== 'false', metadata: params.metadata ?? {}, created: this.now(), updated: this.now(), livemode: false };
      this.products.set(id, product);
      return [200, product];
    }
    if ((m = path.match(/^\/v1\/products\/([^/]+)$/))) {
      const product = this.products.get(m[1]!);
      if (!product) return missing(`product: '${m[1]}'`);
      if (method === 'GET') return [200, product];
      if (method === 'POST') {
        if (params.name !== undefined) product.name = params.name;
        if (params.active !== undefined) product.active = params.active === 'true';
        if (params.metadata !== undefined) product.metadata = { ...(product.metadata as Json), ...(params.metadata as Json) };
        product.updated = this.now();
        return [200, product];
      }
    }
    if ((m = path.match(/^\/v1\/prices\/([^/]+)$/)) && method === 'POST') {
      const price = this.prices.get(m[1]!);
      if (!price) return missing(`price: '${m[1]}'`);
      const unserved = Object.keys(params).filter((k) => !['active', 'metadata', 'nickname'].includes(k));
      // Amounts are immutable at Stripe: a new price is made instead.
      if (unserved.length) return invalid(`Received unknown parameter: ${unserved[0]}`, unserved[0]);
      if (params.active !== undefined) price.active = params.active === 'true';
      if (params.metadata !== undefined) price.metadata = { ...(price.metadata as Json), ...(params.metadata as Json) };
      if (params.nickname !== undefined) price.nickname = params.nickname;
      return [200, price];
    }
    if (method === 'POST' && path === '/v1/refunds') {
      const intent = this.intents.get(String(params.payment_intent ?? ''));
      if (!intent) return noSuchParam(`payment_intent: '${String(params.payment_intent)}'`, 'payment_intent');
      if (intent.status !== 'succeeded') return invalid('This PaymentIntent does not have a successful charge to refund.', 'payment_intent');
      return [200, this.refundPayment(String(intent.id), { ...(params.amount !== undefined ? { amount: Number(params.amount) } : {}), ...(typeof params.reason === 'string' ? { reason: params.reason } : {}) })];
    }
    if (method === 'GET' && path === '/v1/refunds') {
      return this.list(path, [...this.refunds.values()].reverse(), params, (r) => params.payment_intent === undefined || r.payment_intent === params.payment_intent);
    }
    return undefined;
  }

  /** A `subscription`-mode session's line item and subscription_data, or Stripe's refusal. */
  private subscriptionCheckoutOf(params: Json, items: Json[]): { price: string; quantity: number; subscriptionData: Json } | [number, Json] {
    if (params.payment_intent_data !== undefined) return invalid('You can not pass `payment_intent_data` in `subscription` mode.', 'payment_intent_data');
    if (items.length !== 1 || typeof items[0]!.price !== 'string') return invalid('The fake serves `subscription` mode with one line item naming a recurring `price`.', 'line_items');
    const priceId = String(items[0]!.price);
    const price = this.prices.get(priceId);
    if (!price) return noSuchParam(`price: '${priceId}'`, 'line_items[0][price]');
    if (!price.recurring) return invalid('You must provide at least one recurring price in `subscription` mode when using prices.', 'line_items[0][price]');
    const subscriptionData = (params.subscription_data ?? {}) as Json;
    if (subscriptionData.trial_period_days !== undefined) {
      const days = Number(subscriptionData.trial_period_days);
      if (!Number.isInteger(days) || days < 1 || days > 730) return invalid('`trial_period_days` must be between 1 and 730.', 'subscription_data[trial_period_days]');
    }
    return { price: priceId, quantity: Number(items[0]!.quantity ?? 1), subscriptionData };
  }

  /** Prices, subscriptions, billing-portal sessions and subscription schedules; undefined: not one of theirs. */
  private routeSubscriptions(method: string, path: string, params: Json): [number, Json] | undefined {
    let m: RegExpMatchArray | null;
    if (method === 'GET' && path === '/v1/prices') {
      const keys = params.lookup_keys === undefined ? undefined : ([] as unknown[]).concat(params.lookup_keys).map(String);
      const active = params.active === undefined ? undefined : params.active === 'true';
      return this.list(path, [...this.prices.values()].reverse(), params, (p) => (!keys || keys.includes(String(p.lookup_key))) && (active === undefined || p.active === active));
    }
    if (method === 'POST' && path === '/v1/prices') return this.createPrice(params);
    if ((m = path.match(/^\/v1\/prices\/([^/]+)$/)) && method === 'GET') {
      const price = this.prices.get(m[1]!);
      return price ? [200, price] : missing(`price: '${m[1]}'`);
    }
    if (method === 'GET' && path === '/v1/subscriptions') {
      // Without `status`, Stripe lists every subscription that is not canceled.
      const status = params.status === undefined ? undefined : String(params.status);
      const keep = (s: Json) =>
        (status === 'all' || (status === undefined ? s.status !== 'canceled' : s.status === status)) && (params.customer === undefined || s.customer === params.customer);
      return this.list(path, [...this.subscriptions.values()].reverse(), params, keep);
    }
    if ((m = path.match(/^\/v1\/subscriptions\/([^/]+)$/))) {
      const subscription = this.subscriptions.get(m[1]!);
      if (!subscription) return missing(`subscription: '${m[1]}'`);
      if (method === 'GET') return [200, this.expandSubscription(subscription, params.expand)];
      if (method === 'POST') return this.updateSubscription(subscription, params);
    }
    if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      if (params.customer === undefined) return invalid('Missing required param: customer.', 'customer');
      if (!this.customers.has(String(params.customer))) return noSuchParam(`customer: '${String(params.customer)}'`, 'customer');
      const session = {
        id: rid('bps'),
        object: 'billing_portal.session',
        customer: params.customer,
        return_url: params.return_url ?? null,
        url: `https://billing.stripe.test/p/session/${rid('test')}`,
        configuration: 'bpc_fake_default',
        flow: null,
        locale: null,
        on_behalf_of: null,
        created: this.now(),
        livemode: false,
      };
      return [200, session];
    }
    if (method === 'POST' && path === '/v1/subscription_schedules') return this.createSchedule(params);
    if ((m = path.match(/^\/v1\/subscription_schedules\/([^/]+)(\/release)?$/))) {
      const schedule = this.schedules.get(m[1]!);
      if (method === 'GET' && !m[2]) return schedule ? [200, schedule] : missing(`subscription_schedule: '${m[1]}'`);
      if (method === 'POST') {
        if (!schedule) return missing(`subscription_schedule: '${m[1]}'`);
        return m[2] ? this.releaseSchedule(schedule) : this.updateSchedule(schedule, params);
      }
    }
    return undefined;
  }

  private createPrice(params: Json): [number, Json] {
    if (typeof params.currency !== 'string') return invalid('Missing required param: currency.', 'currency');
    const unitAmount = Number(params.unit_amount);
    if (params.unit_amount === undefined || !Number.isInteger(unitAmount) || unitAmount < 0) return invalid('Invalid integer: unit_amount', 'unit_amount');
    const recurring = params.recurring as Json | undefined;
    const intervalCount = Number(recurring?.interval_count ?? 1);
    if (recurring && (afterIntervals(0, recurring.interval, 1) === undefined || !Number.isInteger(intervalCount) || intervalCount < 1)) {
      return invalid('Invalid recurring[interval]: must be one of day, week, month, or year', 'recurring[interval]');
    }
    let product: string;
    const productData = params.product_data as Json | undefined;
    if (params.product !== undefined) {
      product = String(params.product);
      if (!this.products.has(product)) return noSuchParam(`product: '${product}'`, 'product');
    } else if (typeof productData?.name === 'string') {
      product = rid('prod');
      this.products.set(product, { id: product, object: 'product', name: productData.name, active: true, metadata: productData.metadata ?? {}, created: this.now(), livemode: false });
    } else {
      return invalid('You must specify either `product` or `product_data` when creating a price.', 'product');
    }
    const lookupKey = params.lookup_key === undefined ? null : String(params.lookup_key);
    const holder = lookupKey === null ? undefined : [...this.prices.values()].find((p) => p.lookup_key === lookupKey);
    if (holder) {
      if (params.transfer_lookup_key !== 'true') return invalid(`A price (\`${String(holder.id)}\`) already uses that lookup key.`, 'lookup_key');
      holder.lookup_key = null;
    }
    const price = {
      id: rid('price'),
      object: 'price',
      active: true,
      currency: params.currency,
      unit_amount: unitAmount,
      unit_amount_decimal: String(unitAmount),
      billing_scheme: 'per_unit',
      type: recurring ? 'recurring' : 'one_time',
      recurring: recurring ? { interval: recurring.interval, interval_count: intervalCount, usage_type: 'licensed', meter: null, trial_period_days: null } : null,
      lookup_key: lookupKey,
      product,
      nickname: null,
      tax_behavior: 'unspecified',
      metadata: params.metadata ?? {},
      created: this.now(),
      livemode: false,
    };
    this.prices.set(price.id, price);
    return [200, price];
  }

  /** A card payment method (test card number → brand-less card with last4 and a fingerprint stable per number). */
  private createCardPaymentMethod(customerId: string, number: string): Json {
    const method = {
      id: rid('pm'),
      object: 'payment_method',
      type: 'card',
      customer: customerId,
      card: { last4: number.slice(-4), fingerprint: createHash('sha256').update(number).digest('hex').slice(0, 16) },
      created: this.now(),
      livemode: false,
    };
    this.paymentMethods.set(method.id, method);
    return method;
  }

  /** GET with expand[]: default_payment_method and customer.invoice_settings.default_payment_method. */
  private expandSubscription(subscription: Json, expand: unknown): Json {
    const paths = Array.isArray(expand) ? expand.map(String) : expand === undefined ? [] : Object.values(expand as Json).map(String);
    if (!paths.length) return subscription;
    const copy = structuredClone(subscription);
    if (paths.includes('default_payment_method') && typeof copy.default_payment_method === 'string') copy.default_payment_method = this.paymentMethods.get(copy.default_payment_method) ?? null;
    if (paths.some((p) => p === 'customer' || p.startsWith('customer.'))) {
      const customer = structuredClone(this.customers.get(String(copy.customer)) ?? null);
      const settings = customer?.invoice_settings as Json | undefined;
      if (settings && paths.includes('customer.invoice_settings.default_payment_method') && typeof settings.default_payment_method === 'string') {
        settings.default_payment_method = this.paymentMethods.get(settings.default_payment_method) ?? null;
      }
      copy.customer = customer;
    }
    return copy;
  }

  /** trial_end `now`: the trial ends, the first period is invoiced at the full price and charged (the card pays). */
  private endTrialNow(subscription: Json): [number, Json] {
    if (subscription.status !== 'trialing') return invalid('trial_end can only be set on a trialing subscription in the fake.', 'trial_end');
    const previous = { status: subscription.status, trial_end: subscription.trial_end, items: structuredClone(subscription.items) };
    const now = this.now();
    const item = itemOf(subscription);
    const price = item.price as Json;
    const recurring = price.recurring as Json;
    const periodEnd = afterIntervals(now, recurring.interval, Number(recurring.interval_count ?? 1))!;
    Object.assign(item, { current_period_start: now, current_period_end: periodEnd });
    const invoice = this.createInvoice(subscription, item, { amount: Number(price.unit_amount) * Number(item.quantity ?? 1), periodStart: now, periodEnd, billingReason: 'subscription_update' });
    Object.assign(subscription, { status: 'active', trial_end: now, billing_cycle_anchor: now, latest_invoice: invoice.id });
    this.emit('customer.subscription.updated', subscription, previous);
    this.emit('invoice.paid', invoice);
    return [200, subscription];
  }

  private updateSubscription(subscription: Json, params: Json): [number, Json] {
    if (params.trial_end === 'now') return this.endTrialNow(subscription);
    const unserved = Object.keys(params).filter((k) => k !== 'cancel_at_period_end' && k !== 'metadata');
    if (unserved.length) return invalid(`The fake serves subscription updates of cancel_at_period_end and metadata only, not ${unserved.join(', ')}.`, unserved[0]);
    if (subscription.status === 'canceled') return invalid('A canceled subscription can only update its cancellation_details and metadata.');
    const previous: Json = {};
    if (params.cancel_at_period_end !== undefined) {
      // Stripe leaves cancellation of a schedule-managed subscription to the schedule.
      if (subscription.schedule) {
        return invalid(
          `The subscription is managed by the subscription schedule \`${String(subscription.schedule)}\`, and updating any cancelation behavior directly is not allowed. Please update the schedule instead.`,
          'cancel_at_period_end',
        );
      }
      const cancel = params.cancel_at_period_end === 'true';
      if (cancel !== subscription.cancel_at_period_end) {
        for (const key of ['cancel_at_period_end', 'cancel_at', 'canceled_at', 'cancellation_details']) previous[key] = structuredClone(subscription[key]);
        Object.assign(subscription, {
          cancel_at_period_end: cancel,
          cancel_at: cancel ? itemOf(subscription).current_period_end : null,
          canceled_at: cancel ? this.now() : null,
          cancellation_details: { reason: cancel ? 'cancellation_requested' : null, comment: null, feedback: null },
        });
      }
    }
    if (params.metadata !== undefined) {
      previous.metadata = structuredClone(subscription.metadata);
      // As at Stripe: an empty value unsets the key.
      const merged = { ...(subscription.metadata as Json), ...(params.metadata as Json) };
      subscription.metadata = Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== ''));
    }
    if (Object.keys(previous).length) this.emit('customer.subscription.updated', subscription, previous);
    return [200, subscription];
  }

  private createSchedule(params: Json): [number, Json] {
    if (params.from_subscription === undefined) return invalid('The fake serves subscription schedules created with `from_subscription` only.', 'from_subscription');
    const subscription = this.subscriptions.get(String(params.from_subscription));
    if (!subscription) return noSuchParam(`subscription: '${String(params.from_subscription)}'`, 'from_subscription');
    if (subscription.schedule) return invalid(`You cannot migrate a subscription that is already attached to a schedule: \`${String(subscription.schedule)}\`.`, 'from_subscription');
    if (subscription.status === 'canceled') return invalid('You cannot migrate a canceled subscription to a subscription schedule.', 'from_subscription');
    const item = itemOf(subscription);
    // The schedule's one phase is the subscription's current period (the trial, while trialing).
    const phase = {
      start_date: item.current_period_start,
      end_date: item.current_period_end,
      items: [{ price: (item.price as Json).id, quantity: item.quantity, metadata: {} }],
      trial_end: subscription.status === 'trialing' ? subscription.trial_end : null,
      proration_behavior: 'create_prorations',
      metadata: {},
    };
    const schedule = {
      id: rid('sub_sched'),
      object: 'subscription_schedule',
      subscription: subscription.id,
      customer: subscription.customer,
      status: 'active',
      end_behavior: 'release',
      phases: [phase],
      current_phase: { start_date: phase.start_date, end_date: phase.end_date },
      released_at: null,
      released_subscription: null,
      canceled_at: null,
      completed_at: null,
      metadata: {},
      created: this.now(),
      livemode: false,
    };
    this.schedules.set(schedule.id, schedule);
    subscription.schedule = schedule.id;
    this.emit('subscription_schedule.created', schedule);
    return [200, schedule];
  }

  private updateSchedule(schedule: Json, params: Json): [number, Json] {
    const unserved = Object.keys(params).filter((k) => !['phases', 'end_behavior', 'proration_behavior', 'metadata'].includes(k));
    if (unserved.length) return invalid(`The fake serves schedule updates of phases, end_behavior, proration_behavior and metadata only, not ${unserved.join(', ')}.`, unserved[0]);
    if (!isLive(schedule)) return invalid(`You cannot update a subscription schedule that is currently in the \`${String(schedule.status)}\` status.`);
    if (params.end_behavior !== undefined && !['release', 'cancel'].includes(String(params.end_behavior))) return invalid('Invalid end_behavior.', 'end_behavior');
    if (params.proration_behavior !== undefined && !['none', 'create_prorations', 'always_invoice'].includes(String(params.proration_behavior))) {
      return invalid('Invalid proration_behavior.', 'proration_behavior');
    }
    let phases: Json[] | undefined;
    if (params.phases !== undefined) {
      const parsed = this.phasesOf(schedule, params.phases);
      if (!Array.isArray(parsed.phases)) return invalid(parsed.error!, parsed.param);
      phases = parsed.phases;
    }
    if (params.end_behavior !== undefined) schedule.end_behavior = params.end_behavior;
    if (params.metadata !== undefined) schedule.metadata = { ...(schedule.metadata as Json), ...(params.metadata as Json) };
    if (phases) {
      schedule.phases = phases;
      schedule.current_phase = { start_date: phases[0]!.start_date, end_date: phases[0]!.end_date };
      this.applyCurrentPhase(schedule, phases[0]!);
    }
    this.emit('subscription_schedule.updated', schedule);
    return [200, schedule];
  }

  /** The phases of an update, normalised (start, end from duration), or why Stripe would refuse them. */
  private phasesOf(schedule: Json, raw: unknown): { phases?: Json[]; error?: string; param?: string } {
    const input = Array.isArray(raw) ? (raw as Json[]) : [];
    if (!input.length) return { error: 'A subscription schedule needs at least one phase.', param: 'phases' };
    // Stripe keeps the current phase's start: an update must restate it.
    const currentStart = Number(((schedule.phases as Json[])[0] ?? {}).start_date);
    if (input[0]!.start_date === undefined || Number(input[0]!.start_date) !== currentStart) {
      return { error: 'You can not modify the start date of the current phase.', param: 'phases[0][start_date]' };
    }
    const phases: Json[] = [];
    let start = currentStart;
    for (const [i, phase] of input.entries()) {
      if (i > 0 && phase.start_date !== undefined && Number(phase.start_date) !== start) {
        return { error: 'The start_date of a phase must equal the end_date of the phase before it.', param: `phases[${i}][start_date]` };
      }
      const items = Array.isArray(phase.items) ? (phase.items as Json[]) : [];
      if (!items.length) return { error: `Missing required param: phases[${i}][items].`, param: `phases[${i}][items]` };
      for (const [j, item] of items.entries()) {
        if (!this.prices.has(String(item.price))) return { error: `No such price: '${String(item.price)}'`, param: `phases[${i}][items][${j}][price]` };
      }
      if (phase.end_date !== undefined && phase.duration !== undefined) return { error: 'You may only specify one of these parameters: end_date, duration.', param: `phases[${i}]` };
      const duration = phase.duration as Json | undefined;
      const recurring = this.prices.get(String(items[0]!.price))!.recurring as Json | null;
      let end: number | undefined;
      if (phase.end_date !== undefined) end = Number(phase.end_date);
      else if (duration) end = afterIntervals(start, duration.interval, Number(duration.interval_count ?? 1));
      // Stripe gives a last phase without an end one billing period.
      else if (i === input.length - 1) end = afterIntervals(start, recurring?.interval ?? 'month', Number(recurring?.interval_count ?? 1));
      else return { error: `phases[${i}] needs an end_date or a duration.`, param: `phases[${i}][end_date]` };
      if (end === undefined || !Number.isFinite(end) || end <= start) return { error: `The end of phases[${i}] must be after its start.`, param: `phases[${i}][end_date]` };
      if (i === 0 && end <= this.now()) return { error: 'The current phase must end in the future.', param: 'phases[0][end_date]' };
      phases.push({
        start_date: start,
        end_date: end,
        items: items.map((item) => ({ price: String(item.price), quantity: Number(item.quantity ?? 1), metadata: {} })),
        trial_end: phase.trial_end === undefined ? null : Number(phase.trial_end),
        proration_behavior: phase.proration_behavior ?? 'create_prorations',
        metadata: {},
      });
      start = end;
    }
    return { phases };
  }

  /**
   * As at Stripe, the current phase applies to the subscription at once: another price replaces the item's
   * price now, and a trialing subscription whose current phase has no trial_end leaves its trial now.
   */
  private applyCurrentPhase(schedule: Json, phase: Json): void {
    const subscription = this.subscriptions.get(String(schedule.subscription));
    if (!subscription) return;
    const item = itemOf(subscription);
    const previous: Json = {};
    const priceId = String((phase.items as Json[])[0]!.price);
    if ((item.price as Json).id !== priceId) {
      previous.items = structuredClone(subscription.items);
      item.price = structuredClone(this.prices.get(priceId)!);
    }
    if (subscription.status === 'trialing' && phase.trial_end === null) {
      const now = this.now();
      const recurring = (item.price as Json).recurring as Json;
      Object.assign(previous, { status: subscription.status, trial_end: subscription.trial_end, items: previous.items ?? structuredClone(subscription.items) });
      Object.assign(subscription, { status: 'active', trial_end: now });
      Object.assign(item, { current_period_start: now, current_period_end: afterIntervals(now, recurring.interval, Number(recurring.interval_count ?? 1)) });
    }
    if (Object.keys(previous).length) this.emit('customer.subscription.updated', subscription, previous);
  }

  private releaseSchedule(schedule: Json): [number, Json] {
    if (!isLive(schedule)) return invalid(`You cannot release a subscription schedule that is currently in the \`${String(schedule.status)}\` status.`);
    const subscription = this.subscriptions.get(String(schedule.subscription));
    // The subscription stays as it is, without the schedule (and so without its pending phases).
    if (subscription) subscription.schedule = null;
    Object.assign(schedule, { status: 'released', released_at: this.now(), released_subscription: schedule.subscription, subscription: null, current_phase: null });
    this.emit('subscription_schedule.released', schedule);
    return [200, schedule];
  }

  /** Stripe's list envelope: newest first, `created[gte|lte]`, `limit` (max 100), `starting_after`. */
  private list(url: string, items: Json[], params: Json, keep: (item: Json) => boolean): [number, Json] {
    const limit = Number(params.limit ?? 10);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      return [400, { error: { type: 'invalid_request_error', param: 'limit', message: 'This value must be between 1 and 100.' } }];
    }
    const created = (params.created ?? {}) as Json;
    let data = items.filter((item) => keep(item) && (created.gte === undefined || Number(item.created) >= Number(created.gte)) && (created.lte === undefined || Number(item.created) <= Number(created.lte)));
    if (params.starting_after) {
      // An unknown cursor must not restart the list from the top (auto-pagination would loop).
      const at = data.findIndex((item) => item.id === params.starting_after);
      if (at < 0) return [400, { error: { type: 'invalid_request_error', param: 'starting_after', message: `No such object: '${String(params.starting_after)}'` } }];
      data = data.slice(at + 1);
    }
    return [200, { object: 'list', url, has_more: data.length > limit, data: data.slice(0, limit) }];
  }
}

function send(res: ServerResponse, status: number, body: Json): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': rid('req') });
  res.end(JSON.stringify(body));
}
