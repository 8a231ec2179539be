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
 * stripe-node 23 retries a reset connection once even with maxNetworkRetries 0 (and keys every POST for it), so
 * `failNext({ mode: 'reset' })` needs a count one above the client's retries to surface StripeConnectionError.
 */
import { randomBytes } from 'node:crypto';
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

export interface RecordedRequest {
  method: string;
  path: string;
  params: Json;
  headers: Record<string, string | string[] | undefined>;
}

const rid = (prefix: string): string => `${prefix}_${randomBytes(18).toString('base64url').replace(/[-_]/g, 'x').slice(0, 24)}`;

export class FakeStripeServer {
  readonly requests: RecordedRequest[] = [];
  private sessions = new Map<string, Json>();
  private intents = new Map<string, Json>();
  private events: Json[] = [];
  private tokens = new Map<string, { token: Json; outcome: TokenOutcome }>();
  /** payment_intent_data[metadata] per session: Stripe puts it on the intent, not on the session. */
  private intentMetadata = new Map<string, Json>();
  private idempotent = new Map<string, { params: string; status: number; body: Json }>();
  private failures: (FailureInjection & { left: number })[] = [];
  private offsetSeconds = 0;
  private readonly sockets = new Set<Socket>();

  /** The fake's clock: `advance` moves Stripe's "now" forward, so open sessions can pass their expires_at. */
  readonly clock = {
    now: (): number => Math.floor(Date.now() / 1000) + this.offsetSeconds,
    advance: (seconds: number): void => {
      this.offsetSeconds += seconds;
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
    this.idempotent.clear();
    this.failures = [];
    this.offsetSeconds = 0;
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
    const intent = this.createIntent(Number(session.amount_total), String(session.currency), metadata, options.paymentStatus === 'paid' ? 'succeeded' : 'processing');
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

  private emit(type: string, object: Json): Json {
    const event = {
      id: rid('evt'),
      object: 'event',
      type,
      created: this.now(),
      api_version: '2026-10-28.endive',
      livemode: false,
      pending_webhooks: 1,
      request: { id: null },
      data: { object: structuredClone(object) },
    };
    this.events.unshift(event);
    return event;
  }

  private createIntent(amount: number, currency: string, metadata: Json, status: string): Json {
    const intent = { id: rid('pi'), object: 'payment_intent', amount, currency, status, metadata: { ...metadata }, created: this.now(), livemode: false, latest_charge: null };
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
    const missing = (what: string): [number, Json] => [404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${what}` } }];
    const invalid = (message: string): [number, Json] => [400, { error: { type: 'invalid_request_error', message } }];
    let m: RegExpMatchArray | null;

    if (method === 'POST' && path === '/v1/checkout/sessions') {
      const expiresAt = Number(params.expires_at ?? this.now() + 86_400);
      if (expiresAt < this.now() + 1800 - 60 || expiresAt > this.now() + 86_400 + 60) {
        return invalid('The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.');
      }
      const items = (params.line_items ?? []) as Json[];
      const amount = items.reduce((sum, item) => sum + Number((item.price_data as Json | undefined)?.unit_amount ?? 0) * Number(item.quantity ?? 1), 0);
      const id = rid('cs_test');
      const session = {
        id,
        object: 'checkout.session',
        mode: params.mode,
        status: 'open',
        payment_status: 'unpaid',
        url: `${this.baseUrl}/c/pay/${id}`,
        amount_total: amount,
        currency: (items[0]?.price_data as Json | undefined)?.currency ?? 'usd',
        client_reference_id: params.client_reference_id ?? null,
        metadata: params.metadata ?? {},
        payment_intent: null,
        customer: null,
        expires_at: expiresAt,
        created: this.now(),
        success_url: String(params.success_url ?? '').replace('{CHECKOUT_SESSION_ID}', id),
        cancel_url: params.cancel_url ?? null,
        livemode: false,
      };
      this.sessions.set(id, session);
      this.intentMetadata.set(id, { ...((params.payment_intent_data as Json | undefined)?.metadata as Json | undefined) });
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
    return [404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` } }];
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
