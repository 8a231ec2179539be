import { accountsV1, billingV1, commonV1, dateFromTimestamp, isoOrNull } from '@cardlens/contracts';
import { callUnary, createClient } from '@cardlens/grpc-kit';

/** The gateway's view of the services behind it: one function per use case it calls, over gRPC. */
export interface AgentIdentity {
  agentId: number;
  name: string;
  tier: 'anonymous' | 'registered' | 'paid';
  keyPrefix: string | null;
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

export function createDownstream(options: { accountsAddress: string; billingAddress: string; deadlineMs: number }) {
  const accounts = createClient(accountsV1.AccountsServiceClient, options.accountsAddress);
  const billing = createClient(billingV1.BillingServiceClient, options.billingAddress);
  const deadline = { deadlineMs: options.deadlineMs };

  const toIdentity = (agent: accountsV1.Agent | undefined, hasPurchased = false): AgentIdentity => {
    if (!agent) throw new Error('accounts returned no agent');
    return {
      agentId: agent.agentId,
      name: agent.name,
      tier: hasPurchased ? 'paid' : tierName(agent.tier),
      keyPrefix: agent.keyPrefix ?? null,
      createdAt: agent.createdAt ? dateFromTimestamp(agent.createdAt) : new Date(0),
    };
  };

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

    async authenticateApiKey(apiKey: string): Promise<AgentIdentity> {
      const response = await callUnary(accounts, 'authenticateApiKey', { apiKey }, deadline);
      return toIdentity(response.agent);
    },

    /** The agent with its tier: "paid" once billing has recorded a credit purchase. */
    async getAgent(agentId: number): Promise<AgentIdentity> {
      const [agent, balance] = await Promise.all([
        callUnary(accounts, 'getAgent', { agentId }, deadline),
        callUnary(billing, 'getBalance', { agentId }, deadline),
      ]);
      return toIdentity(agent.agent, balance.hasPurchased);
    },

    async getBalance(agentId: number): Promise<{ credits: number; hasPurchased: boolean }> {
      return callUnary(billing, 'getBalance', { agentId }, deadline);
    },

    async getSubscription(agentId: number): Promise<GradingSubscriptionView> {
      const { subscription: s } = await callUnary(billing, 'getSubscription', { agentId }, deadline);
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
      };
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

    /** Whether each gRPC channel connects within the deadline (for /readyz). */
    async readiness(deadlineMs = 1000): Promise<Record<'accounts' | 'billing', 'ok' | 'fail'>> {
      const check = (client: { waitForReady(deadline: Date, cb: (error?: Error) => void): void }) =>
        new Promise<'ok' | 'fail'>((resolve) => client.waitForReady(new Date(Date.now() + deadlineMs), (error) => resolve(error ? 'fail' : 'ok')));
      const [accountsCheck, billingCheck] = await Promise.all([check(accounts), check(billing)]);
      return { accounts: accountsCheck, billing: billingCheck };
    },

    close(): void {
      accounts.close();
      billing.close();
    },
  };
}
