import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../application/context';
import { GradingSubscription, type AgentIdentity } from '../contract/schemas';
import { registerAgent } from '../application/agents';
import { authenticate, authOf, creditsOf, sendAuthenticated } from '../http/authenticated';
import { clientIp } from '../http/client-ip';
import { methodNotAllowed, requireJsonBody } from '../http/request';

export function agentRoutes(app: AppContext): Router {
  const { downstream, limiters } = app;
  const router = Router();

  router
    .route('/v1/agents')
    .post(async (req: Request, res: Response) => {
      const registered = await registerAgent(app, requireJsonBody(req), clientIp(req), res);
      res.setHeader('Location', `${app.baseUrl}/v1/agents/me`);
      res.status(201).json(registered);
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/v1/agents/me')
    .get(authenticate(downstream, limiters), async (_req: Request, res: Response) => {
      const { agent } = authOf(res);
      const [identity, credits, subscription] = await Promise.all([
        downstream.getAgent(agent.agentId),
        creditsOf(res, downstream),
        downstream.getSubscription(agent.agentId),
      ]);
      await sendAuthenticated(res, downstream, 200, {
        agentId: identity.agentId,
        name: identity.name,
        tier: identity.tier,
        credits,
        keyPrefix: identity.keyPrefix,
        createdAt: identity.createdAt.toISOString(),
        // Billing's view, held to the document's GradingSubscription (an undocumented value is a 500, not a silent drift).
        balances: { prepaidCredits: credits, gradingSubscription: GradingSubscription.parse(subscription) },
      } satisfies AgentIdentity, credits);
    })
    .all(methodNotAllowed('GET'));

  return router;
}
