import express, { Router, type Request, type Response } from 'express';
import { AppError } from '@cardlens/errors';
import { billingV1, isoOrNull } from '@cardlens/contracts';
import { z } from 'zod';
import type { Downstream } from '../downstream';
import { authenticate, authOf, sendAuthenticated } from '../http/authenticated';
import { escapeHtml, sendHtmlPage } from '../http/html';
import { clientIp } from '../http/client-ip';
import { consumeOrThrow, type RateLimiters } from '../http/rate-limits';
import { methodNotAllowed, requireJsonBody } from '../http/request';
import { usd } from './pricing';

const money = (cents: number): string => `US$${(cents / 100).toFixed(2)}`;

/** A provider checkout session id as it appears in our URLs (Stripe `cs_test_…`/`cs_live_…`, sandbox `cs_sandbox_…`). */
const CHECKOUT_SESSION_ID = /^cs_[A-Za-z0-9_]{1,250}$/;

/** Stripe's event payloads are a few kB; anything near this is not a Stripe event. */
export const WEBHOOK_BODY_LIMIT = '512kb';

const purchaseBody = z.object({
  pack: z.unknown().optional(),
  sharedPaymentToken: z.string({ error: 'sharedPaymentToken must be a string or null' }).min(1, 'sharedPaymentToken must not be empty').max(255).nullish(),
});

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
export function purchaseRoutes(deps: { downstream: Downstream; limiters: RateLimiters }): Router {
  const { downstream, limiters } = deps;
  const router = Router();

  router
    .route('/v1/credits/purchase')
    .post(authenticate(downstream, limiters), async (req: Request, res: Response) => {
      const body = parsePurchase(requireJsonBody(req));
      const { agent } = authOf(res);
      const result = await downstream.createCreditPurchase({
        agentId: agent.agentId,
        pack: body.pack,
        ...(body.sharedPaymentToken ? { sharedPaymentToken: body.sharedPaymentToken } : {}),
      });
      if (result.$case === 'tokenPayment') {
        const paid = result.value;
        await sendAuthenticated(res, downstream, 200, {
          status: paid.status,
          pack: paid.pack,
          credits: paid.credits,
          priceUsd: usd(paid.priceCents),
          creditsRemaining: paid.creditsRemaining,
          paymentIntentId: paid.paymentIntentId,
        }, paid.creditsRemaining);
        return;
      }
      const offer = result.value;
      await sendAuthenticated(res, downstream, 200, {
        checkoutUrl: offer.checkoutUrl,
        pack: offer.pack,
        credits: offer.credits,
        priceUsd: usd(offer.priceCents),
        expiresAt: isoOrNull(offer.expiresAt),
      });
    })
    .all(methodNotAllowed('POST'));

  // Where hosted checkout sends the owner after paying. The webhook normally got there first; if not, this
  // fulfils the session itself (same idempotent path), so the page never lies about the credits.
  router
    .route('/checkout/success')
    .get(async (req: Request, res: Response) => {
      await consumeOrThrow(limiters.open, clientIp(req));
      const sessionId = typeof req.query.session_id === 'string' ? req.query.session_id : '';
      if (!CHECKOUT_SESSION_ID.test(sessionId)) throw new AppError('checkout_not_found', 'The link has no valid checkout session id.');
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
      await consumeOrThrow(limiters.open, clientIp(req));
      sendHtmlPage(res, 200, 'Checkout cancelled', '<p>Nothing was charged. The agent can ask for a new checkout link at any time (POST /v1/credits/purchase).</p>');
    })
    .all(methodNotAllowed('GET'));

  // The sandbox payment provider's checkout page (only while billing runs the sandbox; otherwise not_found).
  router
    .route('/sandbox/checkout/:sessionId')
    .get(async (req: Request, res: Response) => {
      await consumeOrThrow(limiters.open, clientIp(req));
      const checkout = await downstream.getSandboxCheckout(sessionIdParam(req));
      const id = escapeHtml(checkout.checkoutSessionId);
      const amount = `${(Number(checkout.amountCents) / 100).toFixed(2)} ${escapeHtml(checkout.currency.toUpperCase())}`;
      const body =
        checkout.status === 'open'
          ? `<form method="post" action="/sandbox/checkout/${id}/pay"><button id="pay" type="submit">Pay ${amount} (sandbox)</button></form>
             <form method="post" action="/sandbox/checkout/${id}/cancel"><button id="cancel" type="submit">Cancel</button></form>`
          : `<p id="status">This checkout is ${escapeHtml(checkout.status)}.</p>`;
      sendHtmlPage(
        res,
        200,
        'Sandbox checkout',
        `<p class="sandbox"><strong>SANDBOX: no money moves.</strong> This page stands in for Stripe Checkout on a server without a Stripe key. No card details are asked for or accepted.</p>
         <p>${escapeHtml(checkout.description)}</p><p>Amount: <strong>${amount}</strong></p>
         <p>Expires: ${escapeHtml(isoOrNull(checkout.expiresAt) ?? '')}</p>${body}`,
      );
    })
    .all(methodNotAllowed('GET'));

  for (const action of ['pay', 'cancel'] as const) {
    router
      .route(`/sandbox/checkout/:sessionId/${action}`)
      .post(async (req: Request, res: Response) => {
        await consumeOrThrow(limiters.open, clientIp(req));
        const next = await downstream.completeSandboxCheckout(sessionIdParam(req), action);
        res.redirect(303, next);
      })
      .all(methodNotAllowed('POST'));
  }

  return router;
}

function sessionIdParam(req: Request): string {
  const id = String(req.params.sessionId ?? '');
  if (!CHECKOUT_SESSION_ID.test(id)) throw new AppError('checkout_not_found', 'No checkout session with this id.');
  return id;
}

function parsePurchase(raw: unknown): { pack: string; sharedPaymentToken?: string | null | undefined } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new AppError('invalid_body', 'The request body must be a JSON object.');
  const result = purchaseBody.safeParse(raw);
  if (!result.success) throw new AppError('invalid_body', result.error.issues.map((i) => i.message).join('; '));
  const { pack } = result.data;
  // A missing pack is invalid_pack (the spec), with the valid keys in the detail (billing lists them).
  if (pack !== undefined && pack !== null && typeof pack !== 'string') throw new AppError('invalid_body', 'pack must be a string.');
  return { pack: typeof pack === 'string' ? pack : '', sharedPaymentToken: result.data.sharedPaymentToken };
}
