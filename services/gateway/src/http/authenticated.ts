import type { NextFunction, Request, Response } from 'express';
import type { Downstream, AgentIdentity } from '../downstream';
import { presentedApiKey } from './api-key';
import { consumeOrThrow, type RateLimiters } from './rate-limits';

export interface AuthenticatedLocals {
  agent: AgentIdentity;
  rateLimitPolicy: string;
  /**
   * GET only: the balance from the gateway's copy (agent-view.ts) (billing on a miss), started the moment the key is known
   * so that a miss overlaps the route's own call instead of following it. A read reports the balance as it stood
   * at its last change; a write reports it after the write (from the write's own answer or a read that follows it).
   */
  balance?: Promise<number>;
}

/**
 * Authenticates the key, then spends one point of the per-key budget (by agent id: keys never reach Redis).
 * `readsOwnBalance`: a GET route whose own billing read returns the balance, so none is started here.
 * Any other method may move the balance (a debit, a refund of a failed write, a purchase): when it has answered,
 * the gateway forgets the agent's balance, so the agent's next read sees its own write without waiting for
 * billing's announcement.
 */
export function authenticate(downstream: Downstream, limiters: RateLimiters, options: { readsOwnBalance?: boolean } = {}) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const agent = await downstream.authenticateApiKey(presentedApiKey(req));
    await consumeOrThrow(limiters.perKey, `agent:${agent.agentId}`, res);
    if (req.method !== 'GET' && req.method !== 'HEAD') res.once('close', () => downstream.forgetAgentViews(agent.agentId));
    const balance = req.method === 'GET' && !options.readsOwnBalance ? downstream.readCredits(agent.agentId) : undefined;
    // A route that fails before it answers never awaits the read: its failure must not surface as unhandled.
    balance?.catch(() => undefined);
    res.locals.auth = { agent, rateLimitPolicy: limiters.perKey.policy, balance } satisfies AuthenticatedLocals;
    next();
  };
}

export function authOf(res: Response): AuthenticatedLocals {
  return res.locals.auth as AuthenticatedLocals;
}

/** The caller's prepaid credits: the read started with authentication (GET), or a read made now. */
export function creditsOf(res: Response, downstream: Downstream): Promise<number> {
  const auth = authOf(res);
  return auth.balance ?? downstream.getBalance(auth.agent.agentId).then((b) => b.credits);
}

/** X-Credits-Remaining and X-RateLimit-Policy, which every authenticated success carries. */
export function setAuthenticatedHeaders(res: Response, credits: number): void {
  res.setHeader('X-Credits-Remaining', String(credits));
  res.setHeader('X-RateLimit-Policy', authOf(res).rateLimitPolicy);
}

/** Routes that already know the balance (a debit's answer) pass it; others use `creditsOf`. */
export async function sendAuthenticated(res: Response, downstream: Downstream, status: number, body: unknown, creditsRemaining?: number): Promise<void> {
  setAuthenticatedHeaders(res, creditsRemaining ?? (await creditsOf(res, downstream)));
  res.status(status).json(body);
}
