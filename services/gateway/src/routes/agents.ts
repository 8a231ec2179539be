import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../application/context';
import { registerAgent } from '../application/agents';
import { authenticate, authOf, sendAuthenticated } from '../http/authenticated';
import { clientIp } from '../http/client-ip';
import { methodNotAllowed, requireJsonBody } from '../http/request';

export function agentRoutes(app: AppContext): Router {
  const { downstream, limiters } = app;
  const router = Router();

  router
    .route('/v1/agents')
    .post(async (req: Request, res: Response) => {
      res.status(201).json(await registerAgent(app, requireJsonBody(req), clientIp(req)));
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
