import { Router, type Request, type Response } from 'express';
import { AppError } from '@cardlens/errors';
import { isoOrNull, type billingSandboxV1 } from '@cardlens/contracts';
import type { AppContext } from '../application/context';
import { parameters } from '../contract/operations';
import { PlanKey, SubscriptionStatus, type CancelResponse, type PortalLinkResponse } from '../contract/schemas';
import { changePlan, checkCreditsJson, subscribeGrading } from '../application/subscriptions';
import { authenticate, authOf, sendAuthenticated, setAuthenticatedHeaders } from '../http/authenticated';
import { escapeHtml, sendHtmlPage } from '../http/html';
import { clientIp } from '../http/client-ip';
import { consumeOrThrow } from '../http/rate-limits';
import { methodNotAllowed, requireJsonBody } from '../http/request';
import { money, sandboxCardChoices, sandboxCardOf, sandboxFormBody } from './purchases';


const PORTAL_MESSAGE = 'Ask the account owner to open portalUrl to manage the payment method or cancel at period end. The link is short-lived; request a new one each time.';

/** Grading subscriptions: the agent's API calls, the checkout's return page, and the sandbox billing portal. */
export function subscriptionRoutes(app: AppContext): Router {
  const { downstream, limiters } = app;
  const router = Router();
  const auth = authenticate(downstream, limiters);

  router
    .route('/v1/subscriptions/checkout')
    .post(auth, async (req: Request, res: Response) => {
      await sendAuthenticated(res, downstream, 200, await subscribeGrading(app, authOf(res).agent, requireJsonBody(req)));
    })
    .all(methodNotAllowed('POST'));

  // No body: whatever is sent is ignored (so no JSON content type is required).
  router
    .route('/v1/subscriptions/portal')
    .post(auth, async (_req: Request, res: Response) => {
      const portalUrl = await downstream.createPortalSession(authOf(res).agent.agentId);
      await sendAuthenticated(res, downstream, 200, { action: 'portal', portalUrl, message: PORTAL_MESSAGE } satisfies PortalLinkResponse);
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/v1/subscriptions/change-plan')
    .post(auth, async (req: Request, res: Response) => {
      await sendAuthenticated(res, downstream, 200, await changePlan(app, authOf(res).agent, requireJsonBody(req)));
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
        status: SubscriptionStatus.parse(subscription.status),
        plan: PlanKey.parse(subscription.plan),
        cancelAtPeriodEnd: true,
        accessEndsAtUtc: accessEnds,
        message: 'No further charges. Grading access continues until accessEndsAtUtc.',
      } satisfies CancelResponse);
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/v1/subscriptions/me')
    .get(authenticate(downstream, limiters, { readsOwnBalance: true }), async (_req: Request, res: Response) => {
      const { json, prepaidCredits } = await checkCreditsJson(app, authOf(res).agent);
      setAuthenticatedHeaders(res, prepaidCredits);
      res.status(200).type('json').send(json);
    })
    .all(methodNotAllowed('GET'));

  // The subscription checkout's success URL (and the portal's return URL). Access starts with the provider's
  // confirmation (webhook), which the agent reads from GET /v1/subscriptions/me: no billing call here.
  router
    .route('/checkout/subscribed')
    .get(async (req: Request, res: Response) => {
      await consumeOrThrow(limiters.open, clientIp(req), req.res);
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
      await consumeOrThrow(limiters.open, clientIp(req), req.res);
      const portal = await downstream.getSandboxPortal(portalSessionIdParam(req));
      sendHtmlPage(res, 200, 'Sandbox billing portal', portalPage(portal));
    })
    .all(methodNotAllowed('GET'));

  router
    .route('/sandbox/portal/:portalSessionId/card')
    .post(sandboxFormBody, async (req: Request, res: Response) => {
      await consumeOrThrow(limiters.open, clientIp(req), req.res);
      const id = portalSessionIdParam(req);
      res.redirect(303, await downstream.actOnSandboxPortal(id, 'update_card', sandboxCardOf(req, true)));
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/sandbox/portal/:portalSessionId/cancel')
    .post(async (req: Request, res: Response) => {
      await consumeOrThrow(limiters.open, clientIp(req), req.res);
      res.redirect(303, await downstream.actOnSandboxPortal(portalSessionIdParam(req), 'cancel_at_period_end'));
    })
    .all(methodNotAllowed('POST'));

  return router;
}

function portalSessionIdParam(req: Request): string {
  const id = String(req.params.portalSessionId ?? '');
  if (!parameters.SandboxPortalSessionId.schema.safeParse(id).success) throw new AppError('not_found', 'No sandbox billing portal session with this id.');
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
