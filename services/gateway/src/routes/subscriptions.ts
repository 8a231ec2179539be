import { Router, type Request, type Response } from 'express';
import { AppError } from '@cardlens/errors';
import { isoOrNull, type billingSandboxV1, type billingV1 } from '@cardlens/contracts';
import type { Downstream } from '../downstream';
import { authenticate, authOf, sendAuthenticated } from '../http/authenticated';
import { escapeHtml, sendHtmlPage } from '../http/html';
import { clientIp } from '../http/client-ip';
import { consumeOrThrow, type RateLimiters } from '../http/rate-limits';
import { methodNotAllowed, requireJsonBody } from '../http/request';
import { money, sandboxCardChoices, sandboxCardOf, sandboxFormBody } from './purchases';

/** The plan keys of the HTTP contract (PlanKey); billing owns the plans and rejects any other key. */
const PLAN_KEYS = ['grading_5000', 'grading_10000'];

/** A sandbox billing portal session id as it appears in our URLs (`bps_sandbox_…`). */
const PORTAL_SESSION_ID = /^bps_[A-Za-z0-9_]{1,250}$/;

const PORTAL_MESSAGE = 'Ask the account owner to open portalUrl to manage the payment method or cancel at period end. The link is short-lived; request a new one each time.';

/** Grading subscriptions: the agent's API calls, the checkout's return page, and the sandbox billing portal. */
export function subscriptionRoutes(deps: { downstream: Downstream; limiters: RateLimiters }): Router {
  const { downstream, limiters } = deps;
  const router = Router();
  const auth = authenticate(downstream, limiters);

  router
    .route('/v1/subscriptions/checkout')
    .post(auth, async (req: Request, res: Response) => {
      const plan = parsePlan(requireJsonBody(req));
      const { agent } = authOf(res);
      // Billing refuses an empty email with contact_email_required, after checking the plan.
      const result = await downstream.createSubscriptionCheckout(agent.agentId, plan, agent.contactEmail ?? '');
      switch (result.$case) {
        case 'checkout': {
          const offer = result.value;
          const trialDays = offer.includesTrial ? offer.trialDays : 0;
          await sendAuthenticated(res, downstream, 200, {
            action: 'checkout',
            plan: offer.plan,
            checkoutUrl: offer.checkoutUrl,
            expiresAt: isoOrNull(offer.expiresAt),
            trialDays,
            message: offer.includesTrial
              ? `Ask the account owner to open checkoutUrl and add a payment method; the ${trialDays}-day trial starts after checkout and nothing is charged until it ends.`
              : 'Ask the account owner to open checkoutUrl; the plan is charged at checkout (no trial for returning subscribers).',
          });
          return;
        }
        case 'portalUrl':
          await sendAuthenticated(res, downstream, 200, {
            action: 'portal',
            portalUrl: result.value,
            message: 'The subscription is past due: ask the account owner to open portalUrl and update the payment method. Grading resumes as soon as the payment succeeds.',
          });
          return;
        case 'scheduled':
          await sendAuthenticated(res, downstream, 200, scheduledView(result.value));
      }
    })
    .all(methodNotAllowed('POST'));

  // No body: whatever is sent is ignored (so no JSON content type is required).
  router
    .route('/v1/subscriptions/portal')
    .post(auth, async (_req: Request, res: Response) => {
      const portalUrl = await downstream.createPortalSession(authOf(res).agent.agentId);
      await sendAuthenticated(res, downstream, 200, { action: 'portal', portalUrl, message: PORTAL_MESSAGE });
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/v1/subscriptions/change-plan')
    .post(auth, async (req: Request, res: Response) => {
      const plan = parsePlan(requireJsonBody(req));
      const scheduled = await downstream.changePlan(authOf(res).agent.agentId, plan);
      await sendAuthenticated(res, downstream, 200, scheduledView(scheduled));
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/v1/subscriptions/cancel')
    .post(auth, async (_req: Request, res: Response) => {
      const { accessEndsAtUtc, subscription } = await downstream.cancelSubscription(authOf(res).agent.agentId);
      const accessEnds = accessEndsAtUtc ?? subscription.accessEndsAtUtc;
      // Billing answers subscription_not_found unless a subscription with a plan and a deadline was cancelled.
      if (!accessEnds || !subscription.plan) throw new Error('billing cancelled a subscription without a plan or access end');
      await sendAuthenticated(res, downstream, 200, {
        status: subscription.status,
        plan: subscription.plan,
        cancelAtPeriodEnd: true,
        accessEndsAtUtc: accessEnds,
        message: 'No further charges. Grading access continues until accessEndsAtUtc.',
      });
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/v1/subscriptions/me')
    .get(auth, async (_req: Request, res: Response) => {
      const { prepaidCredits, gradingSubscription } = await downstream.getSubscriptionBalance(authOf(res).agent.agentId);
      await sendAuthenticated(res, downstream, 200, { prepaidCredits, ...gradingSubscription }, prepaidCredits);
    })
    .all(methodNotAllowed('GET'));

  // The subscription checkout's success URL (and the portal's return URL). Access starts with the provider's
  // confirmation (webhook), which the agent reads from GET /v1/subscriptions/me: no billing call here.
  router
    .route('/checkout/subscribed')
    .get(async (req: Request, res: Response) => {
      await consumeOrThrow(limiters.open, clientIp(req));
      sendHtmlPage(
        res,
        200,
        'Subscription checkout complete',
        '<p>Thank you. The trial or the plan starts as soon as the payment provider confirms the checkout, which normally takes a few seconds; changes made in the billing portal apply the same way. You can close this page.</p>' +
          '<p>The agent can check the subscription with <code>GET /v1/subscriptions/me</code>.</p>',
      );
    })
    .all(methodNotAllowed('GET'));

  // The sandbox provider's billing portal (only while billing runs the sandbox; otherwise not_found).
  router
    .route('/sandbox/portal/:portalSessionId')
    .get(async (req: Request, res: Response) => {
      await consumeOrThrow(limiters.open, clientIp(req));
      const portal = await downstream.getSandboxPortal(portalSessionIdParam(req));
      sendHtmlPage(res, 200, 'Sandbox billing portal', portalPage(portal));
    })
    .all(methodNotAllowed('GET'));

  router
    .route('/sandbox/portal/:portalSessionId/card')
    .post(sandboxFormBody, async (req: Request, res: Response) => {
      await consumeOrThrow(limiters.open, clientIp(req));
      const id = portalSessionIdParam(req);
      res.redirect(303, await downstream.actOnSandboxPortal(id, 'update_card', sandboxCardOf(req, true)));
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/sandbox/portal/:portalSessionId/cancel')
    .post(async (req: Request, res: Response) => {
      await consumeOrThrow(limiters.open, clientIp(req));
      res.redirect(303, await downstream.actOnSandboxPortal(portalSessionIdParam(req), 'cancel_at_period_end'));
    })
    .all(methodNotAllowed('POST'));

  return router;
}

/** `plan` must be a string; whether it names a plan is billing's decision (invalid_plan lists its keys). */
function parsePlan(raw: unknown): string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new AppError('invalid_body', 'The request body must be a JSON object.');
  const { plan } = raw as { plan?: unknown };
  if (typeof plan !== 'string') {
    throw new AppError('invalid_plan', `${plan === undefined || plan === null ? 'plan is required' : 'plan must be a string'}. Valid plans: ${PLAN_KEYS.join(', ')}.`);
  }
  return plan;
}

function scheduledView(change: billingV1.ScheduledPlanChange) {
  return {
    action: 'scheduled',
    plan: change.currentPlan,
    pendingPlan: change.plan,
    effectiveAtUtc: isoOrNull(change.effectiveAt),
    message: `The plan changes to ${change.plan} at effectiveAtUtc (the next renewal, or the trial end); the current allowance is unchanged.`,
  };
}

function portalSessionIdParam(req: Request): string {
  const id = String(req.params.portalSessionId ?? '');
  if (!PORTAL_SESSION_ID.test(id)) throw new AppError('not_found', 'No sandbox billing portal session with this id.');
  return id;
}

function portalPage(portal: billingSandboxV1.SandboxPortal): string {
  const id = escapeHtml(portal.portalSessionId);
  const date = escapeHtml(isoOrNull(portal.renewsOrEndsAt) ?? 'none');
  // After a cancellation (or once canceled) the date is the end of access, not the next charge.
  const ends = portal.cancelAtPeriodEnd || portal.status === 'canceled';
  const cancel = portal.cancelAtPeriodEnd
    ? '<p id="cancel-state">Cancellation scheduled: the subscription ends at the end of the trial or period.</p>'
    : portal.status === 'canceled'
      ? '<p id="cancel-state">The subscription has ended.</p>'
      : `<p id="cancel-state">Renews automatically.</p><form method="post" action="/sandbox/portal/${id}/cancel"><button id="cancel" type="submit">Cancel at period end</button></form>`;
  return (
    `<p class="sandbox"><strong>SANDBOX: no money moves.</strong> This page stands in for the Stripe billing portal on a server without a Stripe key. Only sandbox test cards can be chosen; no real card details are asked for or accepted.</p>` +
    `<p>Plan: <strong>${escapeHtml(portal.plan)}</strong>, ${money(Number(portal.priceCents))} per month</p>` +
    `<p>Status: <strong id="status">${escapeHtml(portal.status)}</strong></p>` +
    `<p>Card on file: <strong id="card">Visa ending in ${escapeHtml(portal.cardLast4)}</strong></p>` +
    `<p>${ends ? 'Ends on' : 'Renews on'}: <strong>${date}</strong></p>` +
    cancel +
    `<form method="post" action="/sandbox/portal/${id}/card"><fieldset><legend>Replace the card on file</legend>${sandboxCardChoices()}</fieldset><button id="update-card" type="submit">Update card</button></form>` +
    (portal.returnUrl ? `<p><a href="${escapeHtml(portal.returnUrl)}">Return</a></p>` : '')
  );
}
