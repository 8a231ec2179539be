import type { LedgerEntry } from '../db';
import { HANDLED_EVENT_TYPES, interpretPurchaseEvent, isOurPurchase, isPaidCheckoutSession } from '../domain/purchase-events';
import type { ProviderEvent } from '../payments/provider';
import { ingestPaymentEvent } from './handle-payment-webhook';
import type { PurchaseDeps } from './purchase-deps';

/**
 * Finance's reconciliation (npm run billing:reconcile): the provider's paid credit purchases against our
 * `purchase` ledger entries. The provider is the source of truth for money, the ledger for credits; the
 * ledger key `purchase:<session or intent id>` is what joins them.
 */

/**
 * A payment is granted after it is made, and the provider dates a checkout session by its creation, not its
 * payment: ledger entries are read from this long before `since`, and the provider is listed from there too,
 * so an entry granted just inside the window finds its payment just outside it.
 */
export const LEDGER_SLACK_MS = 24 * 60 * 60 * 1000;

export type MismatchKind = 'paid_not_granted' | 'granted_not_paid' | 'amount_mismatch';

export interface Mismatch {
  kind: MismatchKind;
  /** The checkout session or payment intent id. */
  id: string;
  agentId: number | null;
  pack: string | null;
  credits: number | null;
  amountCents: number | null;
  detail: string;
}

export interface ReconcileReport {
  since: string;
  until: string | null;
  provider: 'stripe' | 'sandbox';
  /** Paid credit purchases the provider reports created in [since, until). */
  providerPaid: number;
  /** Purchase ledger entries created in [since - 1 day, until). */
  ledgerPurchases: number;
  mismatches: Mismatch[];
  /** paid_not_granted ids whose granting event was ingested now (the consumer grants them). */
  repaired: string[];
  /** paid_not_granted ids whose granting event was ingested before: its confirmation may not be consumed yet. */
  alreadyIngested: string[];
  /** paid_not_granted ids with no granting event left at the provider (nothing is granted without one). */
  unrepairable: { id: string; reason: string }[];
}

export interface ReconcileOptions {
  since: Date;
  /** Exclusive. */
  until?: Date;
  repair: boolean;
}

/** A paid credit purchase as the provider reports it. */
export interface ProviderPaid {
  /** The checkout session id (checkout rail) or payment intent id (token rail): the ledger key's suffix. */
  id: string;
  rail: 'checkout' | 'shared_payment_token';
  created: Date;
  agentId: number | null;
  pack: string | null;
  credits: number | null;
  amountCents: number;
  currency: string;
  paymentIntentId: string | null;
  customerId: string | null;
}

/** The provider's paid purchases and the ledger's purchase entries, side by side (the report's input too). */
export interface PurchaseComparison {
  /** Listed from `since` − 1 day, by id. */
  paid: Map<string, ProviderPaid>;
  paidInWindow: ProviderPaid[];
  /** Purchase ledger entries created in [since − 1 day, until). */
  entries: LedgerEntry[];
  mismatches: Mismatch[];
}

const KEY_PREFIX = 'purchase:';

export async function reconcilePurchases(deps: PurchaseDeps, options: ReconcileOptions): Promise<ReconcileReport> {
  const { since, until } = options;
  const { paidInWindow, entries, mismatches } = await comparePurchases(deps, options);
  const report: ReconcileReport = {
    since: since.toISOString(),
    until: until?.toISOString() ?? null,
    provider: deps.provider.name,
    providerPaid: paidInWindow.length,
    ledgerPurchases: entries.length,
    mismatches,
    repaired: [],
    alreadyIngested: [],
    unrepairable: [],
  };
  const missing = mismatches.filter((m) => m.kind === 'paid_not_granted');
  if (options.repair && missing.length > 0) await repair(deps, since, missing, report);
  return report;
}

export async function comparePurchases(deps: PurchaseDeps, options: { since: Date; until?: Date }): Promise<PurchaseComparison> {
  const { since, until } = options;
  const lookFrom = new Date(since.getTime() - LEDGER_SLACK_MS);
  const inWindow = (date: Date) => date >= since && (!until || date < until);

  const paid = await listProviderPaid(deps, lookFrom);
  const paidInWindow = [...paid.values()].filter((p) => inWindow(p.created));

  const entries = await deps.prisma.ledgerEntry.findMany({
    where: { kind: 'purchase', idempotencyKey: { startsWith: KEY_PREFIX }, createdAt: { gte: lookFrom, ...(until ? { lt: until } : {}) } },
    orderBy: { id: 'asc' },
  });
  const byKey = new Map(entries.map((entry) => [entry.idempotencyKey, entry]));

  const mismatches: Mismatch[] = [];
  for (const payment of paidInWindow) {
    const key = `${KEY_PREFIX}${payment.id}`;
    // Looked up directly too: a payment in the window may have been granted after `until`.
    const entry = byKey.get(key) ?? (await deps.prisma.ledgerEntry.findUnique({ where: { idempotencyKey: key } }));
    if (!entry) {
      mismatches.push({ kind: 'paid_not_granted', ...describe(payment), detail: await paidNotGrantedDetail(deps, payment) });
    } else if (payment.credits !== null && entry.amount !== payment.credits) {
      mismatches.push({ kind: 'amount_mismatch', ...describe(payment), detail: `granted ${entry.amount} credits, the payment's metadata says ${payment.credits}` });
    }
  }

  for (const entry of entries) {
    const id = entry.idempotencyKey.slice(KEY_PREFIX.length);
    if (paid.has(id)) continue;
    const mismatch = await checkUnlistedGrant(deps, entry, id, lookFrom);
    if (mismatch) mismatches.push(mismatch);
  }
  return { paid, paidInWindow, entries, mismatches };
}

/** Mismatches this run left standing: all but the paid_not_granted it repaired. */
export function unresolvedMismatches(report: ReconcileReport): Mismatch[] {
  const repaired = new Set(report.repaired);
  return report.mismatches.filter((m) => !(m.kind === 'paid_not_granted' && repaired.has(m.id)));
}

async function listProviderPaid(deps: PurchaseDeps, from: Date): Promise<Map<string, ProviderPaid>> {
  const paid = new Map<string, ProviderPaid>();
  for await (const session of deps.provider.listCheckoutSessions(from)) {
    if (isOurPurchase(session.metadata, deps.environment) && isPaidCheckoutSession(session)) {
      paid.set(session.id, { ...fromMetadata(session.id, 'checkout', session.created, session.metadata, session.amountTotal ?? 0), currency: session.currency ?? 'usd', paymentIntentId: session.paymentIntentId, customerId: session.customerId });
    }
  }
  for await (const intent of deps.provider.listPaymentIntents(from)) {
    // Checkout payments' intents carry rail `checkout` and are counted through their session.
    if (isOurPurchase(intent.metadata, deps.environment) && intent.metadata.rail === 'shared_payment_token' && intent.status === 'succeeded') {
      paid.set(intent.id, { ...fromMetadata(intent.id, 'shared_payment_token', intent.created, intent.metadata, intent.amount), currency: intent.currency, paymentIntentId: intent.id, customerId: null });
    }
  }
  return paid;
}

function fromMetadata(id: string, rail: ProviderPaid['rail'], created: Date, metadata: Record<string, string>, amountCents: number): Omit<ProviderPaid, 'currency' | 'paymentIntentId' | 'customerId'> {
  const int = (value: string | undefined) => (value !== undefined && Number.isSafeInteger(Number(value)) ? Number(value) : null);
  return { id, rail, created, agentId: int(metadata.agent_id), pack: metadata.pack ?? null, credits: int(metadata.credits), amountCents };
}

const describe = (p: ProviderPaid) => ({ id: p.id, agentId: p.agentId, pack: p.pack, credits: p.credits, amountCents: p.amountCents });

/** Says whether a confirmation was already recorded: then the consumer, not the webhook, is behind. */
async function paidNotGrantedDetail(deps: PurchaseDeps, payment: ProviderPaid): Promise<string> {
  const recorded = await deps.prisma.paymentEvent.findFirst({
    where: { confirmsPayment: true, ...(payment.rail === 'checkout' ? { checkoutSessionId: payment.id } : { paymentIntentId: payment.id }) },
    orderBy: { receivedAt: 'asc' },
  });
  const what = payment.rail === 'checkout' ? 'checkout session' : 'payment intent';
  return recorded
    ? `${what} paid; its confirmation ${recorded.id} (${recorded.source}) was recorded at ${recorded.receivedAt.toISOString()} but no credits were granted yet`
    : `${what} paid at the provider; no confirmation recorded and no credits granted (missed webhook?)`;
}

/** A ledger purchase whose payment is not among those listed: a session is asked for individually. */
async function checkUnlistedGrant(deps: PurchaseDeps, entry: LedgerEntry, id: string, lookFrom: Date): Promise<Mismatch | undefined> {
  const ours = entry.causeType === 'checkout_session' ? await deps.prisma.checkoutSession.findUnique({ where: { providerSessionId: id } }) : null;
  const base = { kind: 'granted_not_paid' as const, id, agentId: entry.agentId, pack: ours?.pack ?? null, credits: entry.amount, amountCents: ours?.priceCents ?? null };
  if (entry.causeType !== 'checkout_session') {
    // The port cannot fetch one payment intent; one paid outside the listing needs a look in the dashboard.
    return { ...base, detail: `not among the succeeded payment intents the provider lists since ${lookFrom.toISOString()}` };
  }
  const session = await deps.provider.retrieveCheckoutSession(id);
  if (!session) return { ...base, detail: 'the provider has no such checkout session' };
  if (!isPaidCheckoutSession(session)) return { ...base, detail: `the provider reports the checkout session ${session.status}, payment ${session.paymentStatus}` };
  const credits = Number(session.metadata.credits);
  if (session.metadata.credits !== undefined && entry.amount !== credits) {
    return { ...base, kind: 'amount_mismatch', amountCents: session.amountTotal, detail: `granted ${entry.amount} credits, the payment's metadata says ${credits}` };
  }
  return undefined;
}

/**
 * Feeds the provider's own granting event of each paid_not_granted through the webhook's ingestion path:
 * it records the event and writes the confirmation to the outbox; the running service's consumer grants.
 * Nothing is granted here, and nothing without a provider event.
 */
async function repair(deps: PurchaseDeps, since: Date, missing: Mismatch[], report: ReconcileReport): Promise<void> {
  const wanted = new Set(missing.map((m) => m.id));
  const granting = new Map<string, ProviderEvent>();
  for await (const event of deps.provider.listEvents(HANDLED_EVENT_TYPES, since)) {
    const id = String(event.object.id);
    if (!wanted.has(id) || interpretPurchaseEvent(event, deps.environment).kind !== 'paid') continue;
    // The earliest granting event (a session has one: completed-and-paid or async_payment_succeeded).
    const seen = granting.get(id);
    if (!seen || event.created < seen.created) granting.set(id, event);
  }
  for (const mismatch of missing) {
    const event = granting.get(mismatch.id);
    if (!event) {
      report.unrepairable.push({ id: mismatch.id, reason: `no granting provider event since ${since.toISOString()} (the provider keeps events 30 days); check the dashboard and grant by hand if paid` });
      continue;
    }
    const ingested = await ingestPaymentEvent(deps, event, 'repair');
    (ingested.duplicate ? report.alreadyIngested : report.repaired).push(mismatch.id);
  }
}
