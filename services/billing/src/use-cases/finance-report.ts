import type { PurchaseDeps } from './purchase-deps';
import { comparePurchases, LEDGER_SLACK_MS, type Mismatch, type ProviderPaid } from './reconcile-purchases';

/**
 * Finance's reconciliation report (npm run billing:report; services/billing/RECONCILE.md): one CSV row per
 * credit-pack payment, refund and credits grant in [since, until), joined by checkout session / payment intent
 * (the ledger key `purchase:<id>`), with a status that flags what does not match, plus the signed confirmations
 * billing refused to apply. Built on the reconciliation's
 * comparison, so both say the same; nothing is written.
 */
/**
 * plan_payment: a paid grading-plan invoice (the allowance period it bought); flagged_confirmation: a signed
 * confirmation billing did not apply (not a payment it set up).
 */
export type FinanceRowType = 'payment' | 'refund' | 'credits_granted' | 'plan_payment' | 'flagged_confirmation';

/**
 * ok; paid_not_granted, granted_not_paid, amount_mismatch (the reconciliation's kinds); refunded (a succeeded
 * refund: the credits stay granted, billing does not take them back); flagged (a confirmation not applied, see
 * verify-own-payment.ts); or a refund's own status when not succeeded.
 */
export type FinanceRowStatus = 'ok' | Mismatch['kind'] | 'refunded' | 'flagged' | string;

export interface FinanceRow {
  date: Date;
  type: FinanceRowType;
  status: FinanceRowStatus;
  agentId: number | null;
  customerId: string | null;
  pack: string | null;
  credits: number | null;
  /** Cents; negative for a refund. */
  amountCents: number | null;
  currency: string | null;
  checkoutSessionId: string | null;
  paymentIntentId: string | null;
  refundId: string | null;
  ledgerEntryId: string | null;
  note: string;
}

const KEY_PREFIX = 'purchase:';

export async function financeReport(deps: PurchaseDeps, options: { since: Date; until?: Date }): Promise<FinanceRow[]> {
  const { since, until } = options;
  const inWindow = (date: Date) => date >= since && (!until || date < until);
  const { paid, paidInWindow, entries, mismatches } = await comparePurchases(deps, options);
  const mismatchOf = new Map(mismatches.map((m) => [m.id, m]));
  const entryOf = new Map(entries.map((e) => [e.idempotencyKey.slice(KEY_PREFIX.length), e]));
  const granted = entries.filter((e) => inWindow(e.createdAt));

  // Our own records fill what the provider's listing lacks (a grant whose payment is outside it).
  const ours = await deps.prisma.checkoutSession.findMany({ where: { providerSessionId: { in: granted.map((e) => e.causeId) } } });
  const sessionOf = new Map(ours.map((s) => [s.providerSessionId!, s]));
  const agents = [...new Set([...paidInWindow.map((p) => p.agentId), ...granted.map((e) => e.agentId)].filter((a): a is number => a !== null))];
  const customers = await deps.prisma.billingCustomer.findMany({ where: { provider: deps.provider.name, agentId: { in: agents } } });
  const customerOf = (agentId: number | null, fromProvider: string | null = null) => fromProvider ?? customers.find((c) => c.agentId === agentId)?.customerId ?? null;

  const rows: FinanceRow[] = [];
  for (const payment of paidInWindow) {
    const mismatch = mismatchOf.get(payment.id);
    const entry = entryOf.get(payment.id) ?? (await deps.prisma.ledgerEntry.findUnique({ where: { idempotencyKey: `${KEY_PREFIX}${payment.id}` } }));
    rows.push({
      date: payment.created,
      type: 'payment',
      status: mismatch?.kind ?? 'ok',
      ...paymentFields(payment, customerOf(payment.agentId, payment.customerId)),
      credits: payment.credits,
      refundId: null,
      ledgerEntryId: entry ? String(entry.id) : null,
      note: mismatch?.detail ?? '',
    });
  }
  for (const entry of granted) {
    const id = entry.idempotencyKey.slice(KEY_PREFIX.length);
    const mismatch = mismatchOf.get(id);
    const payment = paid.get(id);
    const session = sessionOf.get(entry.causeId);
    rows.push({
      date: entry.createdAt,
      type: 'credits_granted',
      status: mismatch && mismatch.kind !== 'paid_not_granted' ? mismatch.kind : 'ok',
      agentId: entry.agentId,
      customerId: customerOf(entry.agentId, payment?.customerId),
      pack: payment?.pack ?? session?.pack ?? null,
      credits: entry.amount,
      amountCents: payment?.amountCents ?? session?.priceCents ?? null,
      currency: (payment?.currency ?? session?.currency ?? null)?.toUpperCase() ?? null,
      checkoutSessionId: entry.causeType === 'checkout_session' ? id : null,
      paymentIntentId: payment?.paymentIntentId ?? session?.paymentIntentId ?? (entry.causeType === 'payment_intent' ? id : null),
      refundId: null,
      ledgerEntryId: String(entry.id),
      note: mismatch && mismatch.kind !== 'paid_not_granted' ? mismatch.detail : '',
    });
  }

  const byIntent = new Map([...paid.values()].filter((p) => p.paymentIntentId).map((p) => [p.paymentIntentId!, p]));
  for await (const refund of deps.provider.listRefunds(new Date(since.getTime() - LEDGER_SLACK_MS))) {
    const payment = refund.paymentIntentId ? byIntent.get(refund.paymentIntentId) : undefined;
    // Only this environment's credit-pack payments (plan invoices and other environments are not in this report).
    if (!payment || !inWindow(refund.created)) continue;
    rows.push({
      date: refund.created,
      type: 'refund',
      status: refund.status === 'succeeded' ? 'refunded' : refund.status,
      ...paymentFields(payment, customerOf(payment.agentId, payment.customerId)),
      credits: null,
      amountCents: -refund.amount,
      currency: refund.currency.toUpperCase(),
      refundId: refund.id,
      ledgerEntryId: null,
      note: `${refund.reason ?? 'refund'}; the ${payment.credits ?? '?'} credits granted stay with the agent (billing does not take credits back)`,
    });
  }
  // Grading plans: each paid invoice bought one allowance period (recorded when billing processed the payment).
  const periods = await deps.prisma.allowancePeriod.findMany({ where: { paidAt: { gte: since, ...(until ? { lt: until } : {}) } }, orderBy: { paidAt: 'asc' } });
  const planCustomers = await deps.prisma.billingCustomer.findMany({ where: { provider: deps.provider.name, agentId: { in: [...new Set(periods.map((p) => p.agentId))] } } });
  for (const period of periods) {
    rows.push({
      date: period.paidAt,
      type: 'plan_payment',
      status: 'ok',
      agentId: period.agentId,
      customerId: planCustomers.find((c) => c.agentId === period.agentId)?.customerId ?? null,
      pack: period.plan,
      credits: null,
      amountCents: period.amountCents,
      currency: 'USD',
      checkoutSessionId: null,
      paymentIntentId: null,
      refundId: null,
      ledgerEntryId: null,
      note: `invoice ${period.invoiceId} of ${period.subscriptionId}: ${period.granted} grades, ${period.periodStart.toISOString().slice(0, 10)} to ${period.periodEnd.toISOString().slice(0, 10)}`,
    });
  }
  // Confirmations billing stored without applying them (a session or payment intent it never set up): each is
  // for finance to look into; no credits were granted for them.
  const flagged = await deps.prisma.paymentEvent.findMany({ where: { flaggedReason: { not: null }, receivedAt: { gte: since, ...(until ? { lt: until } : {}) } }, orderBy: { receivedAt: 'asc' } });
  for (const event of flagged) {
    const claimed = event.summary as { agentId?: number | null; pack?: string; credits?: number; amountCents?: number; currency?: string };
    rows.push({
      date: event.receivedAt,
      type: 'flagged_confirmation',
      status: 'flagged',
      agentId: claimed.agentId ?? null,
      customerId: null,
      pack: claimed.pack ?? null,
      credits: claimed.credits ?? null,
      amountCents: claimed.amountCents ?? null,
      currency: claimed.currency ?? null,
      checkoutSessionId: event.checkoutSessionId,
      paymentIntentId: event.paymentIntentId,
      refundId: null,
      ledgerEntryId: null,
      note: `${event.type} ${event.id} not applied: ${event.flaggedReason}; no credits granted (the figures are what it claimed)`,
    });
  }
  // Provider times are whole seconds: within one, a payment reads before its grant and its refund.
  const rank: Record<FinanceRowType, number> = { payment: 0, credits_granted: 1, refund: 2, plan_payment: 3, flagged_confirmation: 4 };
  return rows.sort((a, b) => a.date.getTime() - b.date.getTime() || rank[a.type] - rank[b.type]);
}

function paymentFields(payment: ProviderPaid, customerId: string | null) {
  return {
    agentId: payment.agentId,
    customerId,
    pack: payment.pack,
    amountCents: payment.amountCents,
    currency: payment.currency.toUpperCase(),
    checkoutSessionId: payment.rail === 'checkout' ? payment.id : null,
    paymentIntentId: payment.paymentIntentId,
  };
}

const COLUMNS = ['date', 'type', 'status', 'agent_id', 'customer', 'pack', 'credits', 'amount', 'currency', 'checkout_session', 'payment_intent', 'refund', 'ledger_entry', 'note'] as const;

/** RFC 4180 CSV (header first, CRLF), amounts in currency units (19.00), dates in ISO 8601 UTC. */
export function financeReportCsv(rows: FinanceRow[]): string {
  const cell = (value: string | number | null): string => {
    const text = value === null ? '' : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  const line = (row: FinanceRow) =>
    [
      row.date.toISOString(),
      row.type,
      row.status,
      row.agentId,
      row.customerId,
      row.pack,
      row.credits,
      row.amountCents === null ? null : (row.amountCents / 100).toFixed(2),
      row.currency,
      row.checkoutSessionId,
      row.paymentIntentId,
      row.refundId,
      row.ledgerEntryId,
      row.note,
    ]
      .map(cell)
      .join(',');
  return [COLUMNS.join(','), ...rows.map(line)].join('\r\n') + '\r\n';
}

/** Rows whose status says something does not match (refunds are not mismatches). */
export const flaggedRows = (rows: FinanceRow[]): FinanceRow[] => rows.filter((r) => r.status !== 'ok' && r.status !== 'refunded');
