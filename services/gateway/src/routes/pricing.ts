import { Router, type Request, type Response } from 'express';
import { AppError } from '@cardlens/errors';
import type { Downstream, Pricing } from '../downstream';
import { clientIp } from '../http/client-ip';
import { consumeOrThrow, type RateLimiters } from '../http/rate-limits';
import { methodNotAllowed } from '../http/request';

/** Integer cents (how billing holds money) → the API's USD amounts. */
export const usd = (cents: number): number => Math.round(cents) / 100;

/** The open price lists (no key needed). Values are live server configuration owned by billing. */
export function pricingRoutes(deps: { downstream: Downstream; limiters: RateLimiters }): Router {
  const { downstream, limiters } = deps;
  const router = Router();
  const pricing = async (req: Request): Promise<Pricing> => {
    await consumeOrThrow(limiters.open, clientIp(req), req.res);
    try {
      return await downstream.getPricing();
    } catch (error) {
      throw new AppError('pricing_unavailable', 'Price configuration is temporarily unavailable. It is safe to retry.', { cause: error });
    }
  };

  router
    .route('/v1/pricing')
    .get(async (req: Request, res: Response) => {
      const p = await pricing(req);
      res.json({
        modules: p.modules.map((m) => ({ key: m.key, credits: m.credits, description: m.description, available: m.available })),
        packs: p.packs.map(packView),
        trial: { anonymous: p.trial.anonymous, registered: p.trial.registered },
        currencyNote: p.currencyNote,
      });
    })
    .all(methodNotAllowed('GET'));

  router
    .route('/v1/credits/packs')
    .get(async (req: Request, res: Response) => {
      const p = await pricing(req);
      res.json({
        packs: p.packs.map(packView),
        purchase: 'POST /v1/credits/purchase with {"pack": "<key>"} (API key required). The response has a hosted checkoutUrl for the owner to pay; credits are granted automatically once payment is confirmed. Never collect card details yourself.',
        currencyNote: p.currencyNote,
      });
    })
    .all(methodNotAllowed('GET'));

  router
    .route('/v1/subscriptions/plans')
    .get(async (req: Request, res: Response) => {
      const p = await pricing(req);
      res.json({
        plans: p.plans.map((plan) => ({
          key: plan.key,
          displayName: plan.displayName,
          gradesPerMonth: plan.gradesPerMonth,
          priceUsd: usd(plan.priceCents),
          currency: 'USD',
          trialDays: p.trialDays,
          checkoutAvailable: p.checkoutAvailable,
        })),
        note: `Grading-only monthly plans for POST /v1/grades. Both photos of one card count as one grade. New accounts get a ${p.trialDays}-day unlimited grading trial after adding a payment method on the hosted checkout; the plan is charged automatically after the trial. Unused grades expire at period end.`,
      });
    })
    .all(methodNotAllowed('GET'));

  return router;
}

function packView(pack: Pricing['packs'][number]) {
  return { key: pack.key, displayName: pack.displayName, credits: pack.credits, priceUsd: usd(pack.priceCents) };
}
