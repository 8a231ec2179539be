import type { NextFunction, Request, Response } from 'express';
import type { Downstream, AgentIdentity } from '../downstream';
import { presentedApiKey } from './api-key';
import { consumeOrThrow, type RateLimiters } from './rate-limits';

export interface AuthenticatedLocals {
  agent: AgentIdentity;
  rateLimitPolicy: string;
}

/** Authenticates the key, then spends one point of the per-key budget (by agent id: keys never reach Redis). */
export function authenticate(downstream: Downstream, limiters: RateLimiters) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const agent = await downstream.authenticateApiKey(presentedApiKey(req));
    await consumeOrThrow(limiters.perKey, `agent:${agent.agentId}`);
    res.locals.auth = { agent, rateLimitPolicy: limiters.perKey.policy } satisfies AuthenticatedLocals;
    next();
  };
}

export function authOf(res: Response): AuthenticatedLocals {
  return res.locals.auth as AuthenticatedLocals;
}

/**
 * Every authenticated success carries X-Credits-Remaining and X-RateLimit-Policy. Routes that already know
 * the balance pass it; others read it from billing.
 */
export async function sendAuthenticated(res: Response, downstream: Downstream, status: number, body: unknown, creditsRemaining?: number): Promise<void> {
  const auth = authOf(res);
  const credits = creditsRemaining ?? (await downstream.getBalance(auth.agent.agentId)).credits;
  res.setHeader('X-Credits-Remaining', String(credits));
  res.setHeader('X-RateLimit-Policy', auth.rateLimitPolicy);
  res.status(status).json(body);
}
