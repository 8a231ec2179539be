import { isoOrNull, type billingV1 } from '@cardlens/contracts';
import { AppError, type Problem } from '@cardlens/errors';
import { z } from 'zod';
import { ContactEmail, PlanRequest } from '../contract/schemas';
import { trialRefusalProblem, type GradingSubscriptionView } from '../downstream';
import { parseInput, registerAgent, type RegistrationView } from './agents';
import type { AppContext, Caller } from './context';

/** The plan keys of the HTTP contract (PlanKey); billing owns the plans and rejects any other key. */
export const PLAN_KEYS = ['grading_5000', 'grading_10000'] as const;

/** The body of checkout and change-plan: the contract's PlanRequest (any plan mistake is invalid_plan with the keys). */
export const planInput = PlanRequest;

export type CheckoutView =
  | { action: 'checkout'; plan: string; checkoutUrl: string; expiresAt: string | null; trialDays: number; trialRefusal: Problem | null; message: string }
  | { action: 'portal'; portalUrl: string; message: string }
  | { action: 'scheduled'; plan: string; pendingPlan: string; effectiveAtUtc: string | null; message: string };

function parsePlan(raw: unknown): string {
  return parseInput(planInput, raw).plan;
}

/**
 * POST /v1/subscriptions/checkout and MCP subscribe_grading: a checkout link for the owner (trial on a first
 * subscription), the billing portal (past due) or a plan change scheduled for the next renewal.
 */
export async function subscribeGrading(ctx: AppContext, caller: Caller, raw: unknown): Promise<CheckoutView> {
  const plan = parsePlan(raw);
  // Billing refuses an empty email with contact_email_required, after checking the plan.
  const result = await ctx.downstream.createSubscriptionCheckout(caller.agentId, plan, caller.contactEmail ?? '');
  switch (result.$case) {
    case 'checkout': {
      const offer = result.value;
      const trialDays = offer.includesTrial ? offer.trialDays : 0;
      const trialRefusal = trialRefusalProblem(ctx.baseUrl, offer.trialRefusal);
      return {
        action: 'checkout',
        plan: offer.plan,
        checkoutUrl: offer.checkoutUrl,
        expiresAt: isoOrNull(offer.expiresAt),
        trialDays,
        trialRefusal,
        message: offer.includesTrial
          ? `Ask the account owner to open checkoutUrl and add a payment method; the ${trialDays}-day trial starts after checkout and nothing is charged until it ends.`
          : trialRefusal
            ? `Ask the account owner to open checkoutUrl; the plan is charged at checkout, without a trial: ${trialRefusal.detail}`
            : 'Ask the account owner to open checkoutUrl; the plan is charged at checkout (no trial for returning subscribers).',
      };
    }
    case 'portalUrl':
      return {
        action: 'portal',
        portalUrl: result.value,
        message: 'The subscription is past due: ask the account owner to open portalUrl and update the payment method. Grading resumes as soon as the payment succeeds.',
      };
    case 'scheduled':
      return scheduledView(result.value);
  }
}

/** POST /v1/subscriptions/change-plan: the new plan from the next renewal (or the trial end). */
export async function changePlan(ctx: AppContext, caller: Caller, raw: unknown): Promise<Extract<CheckoutView, { action: 'scheduled' }>> {
  return scheduledView(await ctx.downstream.changePlan(caller.agentId, parsePlan(raw)));
}

function scheduledView(change: billingV1.ScheduledPlanChange): Extract<CheckoutView, { action: 'scheduled' }> {
  return {
    action: 'scheduled',
    plan: change.currentPlan,
    pendingPlan: change.plan,
    effectiveAtUtc: isoOrNull(change.effectiveAt),
    message: `The plan changes to ${change.plan} at effectiveAtUtc (the next renewal, or the trial end); the current allowance is unchanged.`,
  };
}

type CreditsView = { prepaidCredits: number } & GradingSubscriptionView;

/** The body of GET /v1/subscriptions/me and MCP check_credits: prepaid credits and the grading subscription. */
function creditsView(view: { prepaidCredits: number; gradingSubscription: GradingSubscriptionView }): CreditsView {
  return { prepaidCredits: view.prepaidCredits, ...view.gradingSubscription };
}

/** MCP check_credits: prepaid credits and the grading subscription. */
export async function checkCredits(ctx: AppContext, caller: Caller): Promise<CreditsView> {
  return creditsView(await ctx.downstream.getSubscriptionBalance(caller.agentId));
}

/** The JSON of each view the gateway keeps (downstream returns the same object while it keeps the answer). */
const creditsJson = new WeakMap<object, string>();

/** GET /v1/subscriptions/me as JSON text made once per kept view, with the prepaid balance for X-Credits-Remaining. */
export async function checkCreditsJson(ctx: AppContext, caller: Caller): Promise<{ json: string; prepaidCredits: number }> {
  const view = await ctx.downstream.getSubscriptionBalance(caller.agentId);
  let json = creditsJson.get(view);
  if (json === undefined) {
    json = JSON.stringify(creditsView(view));
    creditsJson.set(view, json);
  }
  return { json, prepaidCredits: view.prepaidCredits };
}

export const gradingTrialInput = z.object({
  applicationName: z.string({ error: 'applicationName must be a string' }).describe('Name of the application that will grade (1-100 characters).'),
  ownerEmail: ContactEmail.clone().describe("The account owner's email; the owner completes the checkout."),
  plan: planInput.shape.plan,
});

export interface GradingTrialView {
  agentId: number;
  apiKey: string;
  plan: string;
  checkoutUrl: string | null;
  expiresAt: string | null;
  trialDays: number;
  /** Set when the owner already had a trial on another account: no trial, the plan is charged at checkout. */
  trialRefusal: Problem | null;
  message: string;
}

/**
 * MCP start_grading_trial: a commercial-only account (no prepaid credits) registered with the owner's email,
 * and its subscription checkout link. The plan is checked first, so a bad plan registers nothing. Should the
 * checkout fail after the account exists, the key is still returned (it is shown only once) with the reason,
 * and subscribe_grading gets the link later.
 */
export async function startGradingTrial(ctx: AppContext, raw: unknown, clientIp: string): Promise<GradingTrialView> {
  const input = parseInput(gradingTrialInput, raw);
  if (!(PLAN_KEYS as readonly string[]).includes(input.plan)) throw new AppError('invalid_plan', `Unknown plan "${input.plan.slice(0, 40)}". Valid plans: ${PLAN_KEYS.join(', ')}.`);
  const registered: RegistrationView = await registerAgent(ctx, { name: input.applicationName, contactEmail: input.ownerEmail, commercialOnly: true }, clientIp);
  const caller = await ctx.downstream.getAgent(registered.agentId);
  const base = { agentId: registered.agentId, apiKey: registered.apiKey, plan: input.plan };
  try {
    const checkout = await subscribeGrading(ctx, caller, { plan: input.plan });
    if (checkout.action !== 'checkout') throw new Error(`unexpected checkout action ${checkout.action} for a new account`);
    return {
      ...base,
      checkoutUrl: checkout.checkoutUrl,
      expiresAt: checkout.expiresAt,
      trialDays: checkout.trialDays,
      trialRefusal: checkout.trialRefusal,
      message: checkout.trialRefusal
        ? `Store apiKey now: it is shown only once. Give checkoutUrl to the account owner: they add a payment method on the hosted page (never collect card details yourself). No trial: ${checkout.trialRefusal.detail}`
        : `Store apiKey now: it is shown only once. Give checkoutUrl to the account owner: they add a payment method on the hosted page (never collect card details yourself). The ${checkout.trialDays}-day unlimited grading trial starts once they complete it; check with check_credits.`,
    };
  } catch (error) {
    const why = error instanceof AppError ? error.detail : 'the checkout could not be created';
    return { ...base, checkoutUrl: null, expiresAt: null, trialDays: 0, trialRefusal: null, message: `Store apiKey now: it is shown only once. The account exists but no checkout link could be made (${why}); call subscribe_grading with this key to get one.` };
  }
}
