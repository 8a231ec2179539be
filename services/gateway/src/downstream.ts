import { accountsV1, billingSandboxV1, billingV1, commonV1, dateFromTimestamp, gradingV1, isoOrNull, scansV1 } from '@cardlens/contracts';
import { problemFor, type Problem } from '@cardlens/errors';
import { callUnary, createClient } from '@cardlens/grpc-kit';
import { LRUCache } from 'lru-cache';
import { ApiKeyCache } from './api-key-cache';
import { AgentView } from './agent-view';

/** The gateway's view of the services behind it: one function per use case it calls, over gRPC. */
export interface AgentIdentity {
  agentId: number;
  name: string;
  tier: 'anonymous' | 'registered' | 'paid';
  keyPrefix: string | null;
  /** Needed for a subscription checkout (billing attaches it to the provider customer). */
  contactEmail: string | null;
  createdAt: Date;
}

export interface Pricing {
  modules: { key: string; credits: number; description: string; available: boolean }[];
  packs: { key: string; displayName: string; credits: number; priceCents: number }[];
  plans: { key: string; displayName: string; gradesPerMonth: number; priceCents: number }[];
  trial: { anonymous: number; registered: number };
  trialDays: number;
  checkoutAvailable: boolean;
  currencyNote: string;
}

/** balances.gradingSubscription of GET /v1/agents/me (GET /v1/subscriptions/me adds prepaidCredits). */
export interface GradingSubscriptionView {
  plan: string | null;
  status: string;
  unlimitedGrading: boolean;
  trialEndsAtUtc: string | null;
  gradesRemaining: number | null;
  monthlyAllowance: number | null;
  currentPeriodStartUtc: string | null;
  currentPeriodEndUtc: string | null;
  cancelAtPeriodEnd: boolean;
  pendingPlan: string | null;
  pendingPlanEffectiveAtUtc: string | null;
  gradesUsed: number | null;
  accessEndsAtUtc: string | null;
  /** Set when the account's trial was refused after it started (one trial per person): a problem record. */
  trialRefusal: Problem | null;
}

export type Downstream = ReturnType<typeof createDownstream>;

const tierName = (tier: commonV1.Tier): AgentIdentity['tier'] =>
  tier === commonV1.Tier.PAID ? 'paid' : tier === commonV1.Tier.REGISTERED ? 'registered' : 'anonymous';

const statusName: Record<number, string> = {
  [billingV1.SubscriptionStatus.NONE]: 'none',
  [billingV1.SubscriptionStatus.CHECKOUT_PENDING]: 'checkout_pending',
  [billingV1.SubscriptionStatus.TRIALING]: 'trialing',
  [billingV1.SubscriptionStatus.ACTIVE]: 'active',
  [billingV1.SubscriptionStatus.PAST_DUE]: 'past_due',
  [billingV1.SubscriptionStatus.CANCELLED]: 'cancelled',
  [billingV1.SubscriptionStatus.EXPIRED]: 'expired',
};

/** Billing's trial refusal as the RFC 9457 problem the API embeds (its code is always trial_already_used). */
export function trialRefusalProblem(baseUrl: string, refusal: billingV1.TrialRefusal | undefined): Problem | null {
  return refusal ? problemFor(baseUrl, 'trial_already_used', refusal.detail) : null;
}

/** The one mapping of billing's SubscriptionBalance to the HTTP gradingSubscription object. */
function toGradingSubscription(s: billingV1.SubscriptionBalance | undefined, baseUrl: string): GradingSubscriptionView {
  if (!s) throw new Error('billing returned no subscription');
  return {
    plan: s.plan ?? null,
    status: statusName[s.status] ?? 'none',
    unlimitedGrading: s.unlimitedGrading,
    trialEndsAtUtc: isoOrNull(s.trialEndsAt),
    gradesRemaining: s.gradesRemaining ?? null,
    monthlyAllowance: s.monthlyAllowance ?? null,
    currentPeriodStartUtc: isoOrNull(s.currentPeriodStart),
    currentPeriodEndUtc: isoOrNull(s.currentPeriodEnd),
    cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    pendingPlan: s.pendingPlan ?? null,
    pendingPlanEffectiveAtUtc: isoOrNull(s.pendingPlanEffectiveAt),
    gradesUsed: s.gradesUsed ?? null,
    accessEndsAtUtc: isoOrNull(s.accessEndsAt),
    trialRefusal: trialRefusalProblem(baseUrl, s.trialRefusal),
  };
}

/** A sandbox test card: 4242 then 12 digits (pays), or 4000, 8 digits, 0341 (declines); checked by SandboxCardForm. */
export type SandboxCard = string;

export interface DownstreamOptions {
  accountsAddress: string;
  billingAddress: string;
  scansAddress: string;
  gradingAddress: string;
  /** Deadline of ordinary calls. */
  deadlineMs: number;
  /** Deadline of CreateScan (it waits for the enqueue and for a concurrent duplicate of the same key). */
  scanCreateDeadlineMs: number;
  /** Deadline of GradeCard (the grade's 60 s budget and a margin). */
  gradeDeadlineMs: number;
  /** How long an API key's agent is remembered (0: asked every time). */
  authCacheTtlMs?: number;
  /** The longest a remembered balance or subscription view is used without a change announcement (0: asked every time). */
  billingViewTtlMs?: number;
  /** The public base URL, for the type of problems embedded in answers (known after listen, hence a function). */
  problemBaseUrl?: () => string;
}

/**
 * Completed and failed scans never change again (a result is written once; a failure's text and progress are
 * final, and its refund shows only in the balance), so their answers are kept, per agent and scan, for polling
 * agents that read them again. Bounded by count: a completed result is a few KB.
 */
const FINISHED_SCANS_KEPT = 2_000;
const FINISHED_SCAN_TTL_MS = 30_000;
/** Completed or failed: the scan will not change again. */
export const isFinishedScan = (scan: scansV1.ScanResult): boolean => scan.status === scansV1.ScanStatus.COMPLETED || scan.status === scansV1.ScanStatus.FAILED;

export function createDownstream(options: DownstreamOptions) {
  const accounts = createClient(accountsV1.AccountsServiceClient, options.accountsAddress);
  const billing = createClient(billingV1.BillingServiceClient, options.billingAddress);
  const scans = createClient(scansV1.ScansServiceClient, options.scansAddress);
  const grading = createClient(gradingV1.GradingServiceClient, options.gradingAddress);
  const deadline = { deadlineMs: options.deadlineMs };
  const problemBaseUrl = options.problemBaseUrl ?? (() => '');
  const scanCreateDeadline = { deadlineMs: options.scanCreateDeadlineMs };
  // Purchases wait on the payment provider (its own timeout is 10 s, with retries).
  const purchaseDeadline = { deadlineMs: Math.max(options.deadlineMs, 30_000) };

  const sandbox = createClient(billingSandboxV1.SandboxCheckoutServiceClient, options.billingAddress);
  // The tier is decided in one place: accounts (`paid` once it has consumed a payment confirmation).
  const toIdentity = (agent: accountsV1.Agent | undefined): AgentIdentity => {
    if (!agent) throw new Error('accounts returned no agent');
    return {
      agentId: agent.agentId,
      name: agent.name,
      tier: tierName(agent.tier),
      keyPrefix: agent.keyPrefix ?? null,
      contactEmail: agent.contactEmail ?? null,
      createdAt: agent.createdAt ? dateFromTimestamp(agent.createdAt) : new Date(0),
    };
  };

  const keyCache = new ApiKeyCache(
    async (apiKey: string) => toIdentity((await callUnary(accounts, 'authenticateApiKey', { apiKey }, deadline)).agent),
    { ttlMs: options.authCacheTtlMs ?? 0, maxEntries: 50_000 },
  );

  const getBalance = (agentId: number): Promise<{ credits: number; hasPurchased: boolean }> => callUnary(billing, 'getBalance', { agentId }, deadline);
  const billingViewTtlMs = options.billingViewTtlMs ?? 0;
  const balances = new AgentView('balance', async (agentId) => (await getBalance(agentId)).credits, { ttlMs: billingViewTtlMs, maxEntries: 50_000 });
  // Kept no longer than billing says the answer holds: a trial, period or checkout deadline changes it unannounced.
  const subscriptions = new AgentView('subscription', (agentId) => callUnary(billing, 'getSubscription', { agentId }, deadline), {
    ttlMs: billingViewTtlMs,
    maxEntries: 50_000,
    holdsForMs: (answer) => answer.holdsForMs,
  });
  // The HTTP view of each kept answer, made once: polling agents read the same answer many times.
  const subscriptionViews = new WeakMap<billingV1.GetSubscriptionResponse, { prepaidCredits: number; gradingSubscription: GradingSubscriptionView }>();
  // A finished scan never changes except for its share link (issued, revoked): this gateway forgets its copy when
  // it does either, and another replica's copy is at most FINISHED_SCAN_TTL_MS old.
  const finishedScans = new LRUCache<string, scansV1.ScanResult>({ max: FINISHED_SCANS_KEPT, ttl: FINISHED_SCAN_TTL_MS });

  return {
    async registerAgent(request: { name: string; contactEmail?: string | null | undefined; operatorUrl?: string | null | undefined; commercialOnly?: boolean | undefined; clientIp: string }) {
      const response = await callUnary(accounts, 'registerAgent', {
        name: request.name,
        ...(request.contactEmail != null ? { contactEmail: request.contactEmail } : {}),
        ...(request.operatorUrl != null ? { operatorUrl: request.operatorUrl } : {}),
        commercialOnly: request.commercialOnly ?? false,
        clientIp: request.clientIp,
      }, deadline);
      return { agentId: response.agentId, apiKey: response.apiKey, tier: tierName(response.tier), credits: response.credits, note: response.note ?? null };
    },

    /** Through the short-lived key cache (AUTH_CACHE_TTL_MS): accounts sees one lookup per key and TTL. */
    authenticateApiKey: (apiKey: string): Promise<AgentIdentity> => keyCache.get(apiKey),

    /** The agent with its tier ("paid" once accounts has recorded a credit purchase). */
    async getAgent(agentId: number): Promise<AgentIdentity> {
      const agent = await callUnary(accounts, 'getAgent', { agentId }, deadline);
      return toIdentity(agent.agent);
    },

    /** The balance as billing holds it now (writes that need it fresh); reads use readCredits. */
    getBalance,

    /** The balance reads report (X-Credits-Remaining), through the balance copy (BILLING_VIEW_TTL_MS). */
    readCredits: (agentId: number): Promise<number> => balances.get(agentId),

    /**
     * Billing announced a change to the agent's balance (which the subscription view also shows), or this gateway
     * finished one of the agent's writes: the next reads ask billing.
     */
    forgetAgentViews(agentId: number): void {
      balances.forget(agentId);
      subscriptions.forget(agentId);
    },

    /** Billing announced a subscription change (agentId), or that its clock jumped (every agent). */
    forgetSubscription(agentId: number | 'every-agent'): void {
      if (agentId === 'every-agent') subscriptions.forgetAll();
      else subscriptions.forget(agentId);
    },

    /** Through the subscription view (BILLING_VIEW_TTL_MS, and no longer than billing says it holds). */
    async getSubscription(agentId: number): Promise<GradingSubscriptionView> {
      const { subscription } = await subscriptions.get(agentId);
      return toGradingSubscription(subscription, problemBaseUrl());
    },

    /** GET /v1/subscriptions/me: the prepaid balance and the grading subscription from one billing read. */
    async getSubscriptionBalance(agentId: number): Promise<{ prepaidCredits: number; gradingSubscription: GradingSubscriptionView }> {
      const answer = await subscriptions.get(agentId);
      let view = subscriptionViews.get(answer);
      if (!view) {
        view = { prepaidCredits: answer.subscription?.prepaidCredits ?? 0, gradingSubscription: toGradingSubscription(answer.subscription, problemBaseUrl()) };
        subscriptionViews.set(answer, view);
      }
      return view;
    },

    /** POST /v1/subscriptions/checkout: a new checkout, the portal (past due), or a scheduled plan change. */
    async createSubscriptionCheckout(agentId: number, plan: string, contactEmail: string) {
      const { result } = await callUnary(billing, 'createSubscriptionCheckout', { agentId, plan, contactEmail }, purchaseDeadline);
      if (!result) throw new Error('billing returned no subscription checkout result');
      return result;
    },

    async createPortalSession(agentId: number): Promise<string> {
      const { portalUrl } = await callUnary(billing, 'createPortalSession', { agentId }, purchaseDeadline);
      return portalUrl;
    },

    async changePlan(agentId: number, plan: string): Promise<billingV1.ScheduledPlanChange> {
      const { scheduled } = await callUnary(billing, 'changePlan', { agentId, plan }, purchaseDeadline);
      if (!scheduled) throw new Error('billing returned no scheduled plan change');
      return scheduled;
    },

    async cancelSubscription(agentId: number): Promise<{ accessEndsAtUtc: string | null; subscription: GradingSubscriptionView }> {
      const response = await callUnary(billing, 'cancelSubscription', { agentId }, purchaseDeadline);
      return { accessEndsAtUtc: isoOrNull(response.accessEndsAt), subscription: toGradingSubscription(response.subscription, problemBaseUrl()) };
    },

    async getPricing(): Promise<Pricing> {
      const [pricing, plans] = await Promise.all([
        callUnary(billing, 'getPricing', {}, deadline),
        callUnary(billing, 'listSubscriptionPlans', {}, deadline),
      ]);
      return {
        modules: pricing.modules,
        packs: pricing.packs,
        plans: plans.plans.map((p) => ({ key: p.key, displayName: p.displayName, gradesPerMonth: p.monthlyGrades, priceCents: p.priceCents })),
        trial: pricing.trial ?? { anonymous: 0, registered: 0 },
        trialDays: plans.plans[0]?.trialDays ?? 0,
        checkoutAvailable: plans.checkoutAvailable,
        currencyNote: pricing.currencyNote,
      };
    },

    /** Debits, stores and queues a prepaid scan (or returns the original acceptance of a replayed key). */
    async createScan(request: scansV1.CreateScanRequest): Promise<scansV1.CreateScanResponse> {
      return callUnary(scans, 'createScan', request, scanCreateDeadline);
    },

    /** The stored acceptance for this agent's idempotency key and request, or undefined (CreateScan then decides). */
    async findIdempotentScan(request: scansV1.FindIdempotentScanRequest): Promise<scansV1.CreateScanResponse | undefined> {
      const response = await callUnary(scans, 'findIdempotentScan', request, deadline);
      return response.accepted;
    },

    /** One of the agent's scans; scan_not_found for an unknown id or another agent's scan. */
    async getScan(agentId: number, scanId: number): Promise<scansV1.ScanResult> {
      const cacheKey = `${agentId}:${scanId}`;
      const finished = finishedScans.get(cacheKey);
      if (finished) return finished;
      const { scan } = await callUnary(scans, 'getScan', { agentId, scanId }, deadline);
      if (!scan) throw new Error('scans returned no scan');
      if (isFinishedScan(scan)) finishedScans.set(cacheKey, scan);
      return scan;
    },

    /** The PNG grading overlay of one of the agent's completed scans; scan_not_found otherwise. */
    async getScanOverlay(agentId: number, scanId: number): Promise<Buffer> {
      const { png } = await callUnary(scans, 'getScanOverlay', { agentId, scanId }, deadline);
      return png;
    },

    /** A new share link to the agent's completed scan's report page (the old one stops working). */
    async issueReportLink(agentId: number, scanId: number, expiresInDays: number | undefined): Promise<commonV1.ReportLink> {
      finishedScans.delete(`${agentId}:${scanId}`);
      const { link } = await callUnary(scans, 'issueReportLink', { agentId, scanId, expiresInDays: expiresInDays ?? 0 }, deadline);
      finishedScans.delete(`${agentId}:${scanId}`);
      if (!link) throw new Error('scans returned no link');
      return link;
    },

    /** Revokes the scan's live share link; whether there was one. */
    async revokeReportLink(agentId: number, scanId: number): Promise<boolean> {
      const { revoked } = await callUnary(scans, 'revokeReportLink', { agentId, scanId }, deadline);
      finishedScans.delete(`${agentId}:${scanId}`);
      return revoked;
    },

    /** The completed scan behind a live share link (report_not_found otherwise). */
    async getReport(token: string): Promise<scansV1.GetReportResponse> {
      return callUnary(scans, 'getReport', { token }, deadline);
    },

    async getReportOverlay(token: string): Promise<Buffer> {
      const { png } = await callUnary(scans, 'getReportOverlay', { token }, deadline);
      return png;
    },

    /** POST /v1/grades: one synchronous commercial grade (or the replay of a completed one). */
    async gradeCard(request: { agentId: number; idempotencyKey: string; front: Uint8Array; back: Uint8Array }): Promise<gradingV1.GradeCardResponse> {
      const response = await callUnary(grading, 'gradeCard', { ...request, front: Buffer.from(request.front), back: Buffer.from(request.back) }, { deadlineMs: options.gradeDeadlineMs });
      return response;
    },

    /** One of the agent's commercial grades; grade_not_found for an unknown id or another agent's grade. */
    async getGrade(agentId: number, gradeId: number): Promise<gradingV1.CommercialGrade | undefined> {
      const { grade } = await callUnary(grading, 'getGrade', { agentId, gradeId }, deadline);
      return grade;
    },

    /** A new share link to the agent's completed grade's report page (the old one stops working). */
    async issueGradeReportLink(agentId: number, gradeId: number, expiresInDays: number | undefined): Promise<commonV1.ReportLink> {
      const { link } = await callUnary(grading, 'issueGradeReportLink', { agentId, gradeId, expiresInDays: expiresInDays ?? 0 }, deadline);
      if (!link) throw new Error('grading returned no link');
      return link;
    },

    async revokeGradeReportLink(agentId: number, gradeId: number): Promise<boolean> {
      const { revoked } = await callUnary(grading, 'revokeGradeReportLink', { agentId, gradeId }, deadline);
      return revoked;
    },

    /** The completed grade behind a live share link (report_not_found otherwise). */
    async getGradeReport(token: string): Promise<gradingV1.GetGradeReportResponse> {
      return callUnary(grading, 'getGradeReport', { token }, deadline);
    },

    /** POST /v1/credits/purchase: a hosted checkout (or, with a token, an inline payment). */
    async createCreditPurchase(request: { agentId: number; pack: string; sharedPaymentToken?: string }) {
      const { result } = await callUnary(billing, 'createCreditPurchase', request, purchaseDeadline);
      if (!result) throw new Error('billing returned no purchase result');
      return result;
    },

    /** POST /v1/webhooks/stripe: the raw bytes and signature, verified and ingested by billing. */
    async handlePaymentWebhook(payload: Buffer, signature: string) {
      return callUnary(billing, 'handlePaymentWebhook', { payload, signature }, deadline);
    },

    /** The success URL: the session's state, fulfilled when paid. */
    async confirmCheckoutSession(checkoutSessionId: string) {
      return callUnary(billing, 'confirmCheckoutSession', { checkoutSessionId }, purchaseDeadline);
    },

    async getSandboxCheckout(checkoutSessionId: string) {
      const { checkout } = await callUnary(sandbox, 'getSandboxCheckout', { checkoutSessionId }, deadline);
      if (!checkout) throw new Error('billing returned no sandbox checkout');
      return checkout;
    },

    /** PAY with the chosen sandbox test card (undefined: billing's default, the card that pays), or CANCEL. */
    async completeSandboxCheckout(checkoutSessionId: string, action: 'pay' | 'cancel', cardNumber?: SandboxCard): Promise<string> {
      const actionValue = action === 'pay' ? billingSandboxV1.SandboxCheckoutAction.PAY : billingSandboxV1.SandboxCheckoutAction.CANCEL;
      const { redirectUrl } = await callUnary(sandbox, 'completeSandboxCheckout', { checkoutSessionId, action: actionValue, cardNumber: cardNumber ?? '' }, purchaseDeadline);
      return redirectUrl;
    },

    async getSandboxPortal(portalSessionId: string): Promise<billingSandboxV1.SandboxPortal> {
      const { portal } = await callUnary(sandbox, 'getSandboxPortal', { portalSessionId }, deadline);
      if (!portal) throw new Error('billing returned no sandbox portal');
      return portal;
    },

    /** A new card (an unpaid renewal is retried at once, which runs the sandbox's billing) or cancel at period end. */
    async actOnSandboxPortal(portalSessionId: string, action: 'update_card' | 'cancel_at_period_end', cardNumber?: SandboxCard): Promise<string> {
      const actionValue = action === 'update_card' ? billingSandboxV1.SandboxPortalAction.UPDATE_CARD : billingSandboxV1.SandboxPortalAction.CANCEL_AT_PERIOD_END;
      const { redirectUrl } = await callUnary(sandbox, 'actOnSandboxPortal', { portalSessionId, action: actionValue, cardNumber: cardNumber ?? '' }, purchaseDeadline);
      return redirectUrl;
    },

    /** Whether each gRPC channel connects within the deadline (for /readyz). */
    async readiness(deadlineMs = 1000): Promise<Record<'accounts' | 'billing' | 'scans' | 'grading', 'ok' | 'fail'>> {
      const check = (client: { waitForReady(deadline: Date, cb: (error?: Error) => void): void }) =>
        new Promise<'ok' | 'fail'>((resolve) => client.waitForReady(new Date(Date.now() + deadlineMs), (error) => resolve(error ? 'fail' : 'ok')));
      const [accountsCheck, billingCheck, scansCheck, gradingCheck] = await Promise.all([check(accounts), check(billing), check(scans), check(grading)]);
      return { accounts: accountsCheck, billing: billingCheck, scans: scansCheck, grading: gradingCheck };
    },

    close(): void {
      accounts.close();
      billing.close();
      sandbox.close();
      scans.close();
      grading.close();
    },
  };
}
