import express, { Router, type Request, type Response } from 'express';
import { AppError } from '@cardlens/errors';
import { billingV1, isoOrNull } from '@cardlens/contracts';
import type { Downstream, SandboxCard } from '../downstream';
import { authenticate, authOf, sendAuthenticated } from '../http/authenticated';
import { escapeHtml, sendHtmlPage } from '../http/html';
import { clientIp } from '../http/client-ip';
import { consumeOrThrow } from '../http/rate-limits';
import { methodNotAllowed, requireJsonBody } from '../http/request';
import type { AppContext } from '../application/context';
import { parameters } from '../contract/operations';
import { SandboxCardForm, SandboxCardUpdateForm } from '../contract/schemas';
import { parseRequest } from '../contract/validate';
import { startCreditPurchase } from '../application/purchases';

export const money = (cents: number): string => `US$${(cents / 100).toFixed(2)}`;

/** The sandbox's test cards, as Stripe's: the first pays; the second attaches but every charge declines. */
const SANDBOX_CARDS: Record<SandboxCard, string> = {
  '4242424242424242': 'Visa 4242 (pays)',
  '4000000000000341': 'Visa 0341 (attaches; charges decline)',
};

/** Radio buttons (form field `card`) for the sandbox checkout and portal forms; the card that pays is preselected. */
export function sandboxCardChoices(): string {
  return Object.entries(SANDBOX_CARDS)
    .map(([number, label], i) => `<label><input type="radio" name="card" value="${number}"${i === 0 ? ' checked' : ''}> ${escapeHtml(label)}</label><br>`)
    .join('');
}

/** The `card` field of a sandbox form, checked by the contract's SandboxCardForm (required on the portal's card form). */
export function sandboxCardOf(req: Request, required: boolean): SandboxCard | undefined {
  const body: unknown = req.body ?? {};
  return parseRequest(required ? SandboxCardUpdateForm : SandboxCardForm, body, { label: 'The form' }).card;
}

/** Sandbox forms post application/x-www-form-urlencoded; parsed only on their routes. */
export const sandboxFormBody = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });

/** A provider checkout session id as it appears in our URLs (Stripe `cs_test_…`/`cs_live_…`, sandbox `cs_sandbox_…`). */
const isCheckoutSessionId = (id: string): boolean => parameters.SandboxSessionId.schema.safeParse(id).success;

/** Stripe's event payloads are a few kB; anything near this is not a Stripe event. */
export const WEBHOOK_BODY_LIMIT = 512 * 1024;

/**
 * POST /v1/webhooks/stripe, mounted before the JSON parser: the signature covers the exact bytes, so this
 * route takes the raw body and hands it to billing untouched. Not authenticated by key, not rate limited.
 */
export function webhookRoutes(deps: { downstream: Downstream }): Router {
  const router = Router();
  router
    .route('/v1/webhooks/stripe')
    .post(express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT }), async (req: Request, res: Response) => {
      if (!req.is('application/json')) throw new AppError('unsupported_media_type', 'Webhook bodies are application/json.');
      const signature = req.get('stripe-signature');
      if (!signature) throw new AppError('invalid_body', 'The Stripe-Signature header is missing.');
      const payload = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      await deps.downstream.handlePaymentWebhook(payload, signature);
      res.status(200).json({ received: true });
    })
    .all(methodNotAllowed('POST'));
  return router;
}

/** Credit purchases: the API call, the checkout return pages, and the sandbox provider's checkout page. */
export function purchaseRoutes(ctx: AppContext): Router {
  const { downstream, limiters } = ctx;
  const router = Router();

  router
    .route('/v1/credits/purchase')
    .post(authenticate(downstream, limiters), async (req: Request, res: Response) => {
      const view = await startCreditPurchase(ctx, authOf(res).agent, requireJsonBody(req));
      if (view.kind === 'paid') {
        const { kind: _kind, ...paid } = view;
        await sendAuthenticated(res, downstream, 200, paid, paid.creditsRemaining);
        return;
      }
      const { kind: _kind, ...offer } = view;
      await sendAuthenticated(res, downstream, 200, offer);
    })
    .all(methodNotAllowed('POST'));

  // Where hosted checkout sends the owner after paying. The webhook normally got there first; if not, this
  // fulfils the session itself (same idempotent path), so the page never lies about the credits.
  router
    .route('/checkout/success')
    .get(async (req: Request, res: Response) => {
      await consumeOrThrow(limiters.open, clientIp(req), req.res);
      const sessionId = typeof req.query.session_id === 'string' ? req.query.session_id : '';
      if (!isCheckoutSessionId(sessionId)) throw new AppError('checkout_not_found', 'The link has no valid checkout session id.');
      const session = await downstream.confirmCheckoutSession(sessionId);
      const pack = `${escapeHtml(session.pack)} pack, ${session.credits} credits, ${money(session.priceCents)}`;
      const states: Record<number, [string, string]> = {
        [billingV1.CheckoutState.PAID]: ['Payment received', `${pack}: the credits have been added to the agent's balance. You can close this page.`],
        [billingV1.CheckoutState.PROCESSING]: ['Payment processing', `${pack}: the payment method needs a little time. The credits are added automatically once the payment succeeds.`],
        [billingV1.CheckoutState.OPEN]: ['Not paid yet', `${pack}: this checkout has not been paid. Use the checkout link to pay.`],
        [billingV1.CheckoutState.EXPIRED]: ['Checkout expired', `${pack}: this checkout expired unpaid; nothing was charged. Ask the agent for a new link.`],
        [billingV1.CheckoutState.FAILED]: ['Payment failed', `${pack}: the payment did not go through; nothing was granted. Ask the agent for a new link.`],
      };
      const [title, text] = states[session.state] ?? ['Checkout', pack];
      sendHtmlPage(res, 200, title, `<p>${text}</p>`);
    })
    .all(methodNotAllowed('GET'));

  router
    .route('/checkout/cancelled')
    .get(async (req: Request, res: Response) => {
      await consumeOrThrow(limiters.open, clientIp(req), req.res);
      // Subscription checkouts come back with ?plan=: their link is asked for at another endpoint.
      const again = typeof req.query.plan === 'string' ? 'POST /v1/subscriptions/checkout' : 'POST /v1/credits/purchase';
      sendHtmlPage(res, 200, 'Checkout cancelled', `<p>Nothing was charged and nothing started. The agent can ask for a new checkout link at any time (${again}).</p>`);
    })
    .all(methodNotAllowed('GET'));

  // The sandbox payment provider's checkout page (only while billing runs the sandbox; otherwise not_found).
  router
    .route('/sandbox/checkout/:sessionId')
    .get(async (req: Request, res: Response) => {
      await consumeOrThrow(limiters.open, clientIp(req), req.res);
      const checkout = await downstream.getSandboxCheckout(sessionIdParam(req));
      const id = escapeHtml(checkout.checkoutSessionId);
      const subscription = checkout.mode === 'subscription';
      const amount = `${(Number(checkout.amountCents) / 100).toFixed(2)} ${escapeHtml(checkout.currency.toUpperCase())}`;
      // A subscription checkout collects a card (test cards only) and charges monthly, after any trial.
      const price = subscription
        ? `<p>Price: <strong>${money(Number(checkout.amountCents))} per month</strong></p>${
            checkout.trialDays > 0 ? `<p id="trial">${checkout.trialDays}-day free trial: nothing is charged today; the first charge is at the end of the trial.</p>` : ''
          }`
        : `<p>Amount: <strong>${amount}</strong></p>`;
      const payLabel = subscription ? (checkout.trialDays > 0 ? 'Start the trial (sandbox)' : `Subscribe and pay ${money(Number(checkout.amountCents))} (sandbox)`) : `Pay ${amount} (sandbox)`;
      const body =
        checkout.status === 'open'
          ? `<form method="post" action="/sandbox/checkout/${id}/pay">${subscription ? `<fieldset><legend>Sandbox test card</legend>${sandboxCardChoices()}</fieldset>` : ''}<button id="pay" type="submit">${payLabel}</button></form>
             <form method="post" action="/sandbox/checkout/${id}/cancel"><button id="cancel" type="submit">Cancel</button></form>`
          : `<p id="status">This checkout is ${escapeHtml(checkout.status)}.</p>`;
      const cards = subscription ? 'Only the sandbox test cards below can be chosen; no real card details are asked for or accepted.' : 'No card details are asked for or accepted.';
      sendHtmlPage(
        res,
        200,
        'Sandbox checkout',
        `<p class="sandbox"><strong>SANDBOX: no money moves.</strong> This page stands in for Stripe Checkout on a server without a Stripe key. ${cards}</p>
         <p>${escapeHtml(checkout.description)}</p>${price}
         <p>Expires: ${escapeHtml(isoOrNull(checkout.expiresAt) ?? '')}</p>${body}`,
      );
    })
    .all(methodNotAllowed('GET'));

  router
    .route('/sandbox/checkout/:sessionId/pay')
    .post(sandboxFormBody, async (req: Request, res: Response) => {
      await consumeOrThrow(limiters.open, clientIp(req), req.res);
      const id = sessionIdParam(req);
      // Without a card field (credit packs) billing uses the card that pays.
      const next = await downstream.completeSandboxCheckout(id, 'pay', sandboxCardOf(req, false));
      res.redirect(303, next);
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/sandbox/checkout/:sessionId/cancel')
    .post(async (req: Request, res: Response) => {
      await consumeOrThrow(limiters.open, clientIp(req), req.res);
      const next = await downstream.completeSandboxCheckout(sessionIdParam(req), 'cancel');
      res.redirect(303, next);
    })
    .all(methodNotAllowed('POST'));

  return router;
}

function sessionIdParam(req: Request): string {
  const id = String(req.params.sessionId ?? '');
  if (!isCheckoutSessionId(id)) throw new AppError('checkout_not_found', 'No checkout session with this id.');
  return id;
}

