import { Router, type Request, type Response } from 'express';
import { AppError } from '@cardlens/errors';
import { z } from 'zod';
import type { Downstream } from '../downstream';
import { authenticate, authOf, sendAuthenticated } from '../http/authenticated';
import { clientIp } from '../http/client-ip';
import { consumeOrThrow, giveBack, type RateLimiters } from '../http/rate-limits';
import { methodNotAllowed, requireJsonBody } from '../http/request';

// The HTTP shape only (types); the accounts service enforces the field rules (lengths, email, URL).
const registrationBody = z.object({
  name: z.unknown().refine((v) => v !== undefined, 'name is required').pipe(z.string({ error: 'name must be a string' })),
  contactEmail: z.string({ error: 'contactEmail must be a string or null' }).nullish(),
  operatorUrl: z.string({ error: 'operatorUrl must be a string or null' }).nullish(),
  commercialOnly: z.boolean({ error: 'commercialOnly must be a boolean' }).optional(),
});

export function agentRoutes(deps: { downstream: Downstream; limiters: RateLimiters; baseUrl: string }): Router {
  const { downstream, limiters, baseUrl } = deps;
  const router = Router();

  router
    .route('/v1/agents')
    .post(async (req: Request, res: Response) => {
      const ip = clientIp(req);
      await consumeOrThrow(limiters.registrationAttempts, ip);
      const body = parseBody(requireJsonBody(req));
      // Count successful creations only: take a point now (so concurrent requests cannot overshoot),
      // give it back if the registration does not happen.
      await consumeOrThrow(limiters.newAgents, ip);
      let registered;
      try {
        registered = await downstream.registerAgent({ ...body, clientIp: ip });
      } catch (error) {
        await giveBack(limiters.newAgents, ip);
        throw error;
      }
      res.status(201).json({
        agentId: registered.agentId,
        apiKey: registered.apiKey,
        tier: registered.tier,
        credits: registered.credits,
        docsUrl: `${baseUrl}/api-docs`,
        message: registrationMessage(registered.credits, body.commercialOnly === true),
        ...(registered.note ? { note: registered.note } : {}),
      });
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/v1/agents/me')
    .get(authenticate(downstream, limiters), async (_req: Request, res: Response) => {
      const { agent } = authOf(res);
      const [identity, balance, subscription] = await Promise.all([
        downstream.getAgent(agent.agentId),
        downstream.getBalance(agent.agentId),
        downstream.getSubscription(agent.agentId),
      ]);
      await sendAuthenticated(res, downstream, 200, {
        agentId: identity.agentId,
        name: identity.name,
        tier: identity.tier,
        credits: balance.credits,
        keyPrefix: identity.keyPrefix,
        createdAt: identity.createdAt.toISOString(),
        balances: { prepaidCredits: balance.credits, gradingSubscription: subscription },
      }, balance.credits);
    })
    .all(methodNotAllowed('GET'));

  return router;
}

function parseBody(raw: unknown): z.infer<typeof registrationBody> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new AppError('invalid_body', 'The request body must be a JSON object.');
  const result = registrationBody.safeParse(raw);
  if (!result.success) throw new AppError('invalid_body', result.error.issues.map((i) => i.message).join('; '));
  return result.data;
}

function registrationMessage(credits: number, commercialOnly: boolean): string {
  const keep = 'Store the API key now: it is shown only once and cannot be retrieved again.';
  if (commercialOnly) return `${keep} Commercial-only account: no prepaid credits. Start the grading trial with POST /v1/subscriptions/checkout.`;
  if (credits > 0) return `${keep} ${credits} trial credit${credits === 1 ? '' : 's'} granted; see GET /v1/pricing for module costs.`;
  return `${keep} See GET /v1/credits/packs to buy credits.`;
}
