import type { z } from 'zod';
import { AgentRegistrationRequest, type AgentRegistrationResponse } from '../contract/schemas';
import { parseRequest } from '../contract/validate';
import { consumeOrThrow, giveBack, type RateLimitHeaderSink } from '../http/rate-limits';
import type { AppContext } from './context';

/** Registration input: the contract's AgentRegistrationRequest, as strict as accounts' own field rules. */
export const registrationInput = AgentRegistrationRequest;
export type RegistrationInput = z.infer<typeof registrationInput>;

export interface RegistrationView {
  agentId: number;
  apiKey: string;
  tier: 'anonymous' | 'registered' | 'paid';
  credits: number;
  docsUrl: string;
  message: string;
  note?: string;
}

/** Parses a request body with its contract schema; a mismatch is a 400 with the field's code (see contract/validate). */
export function parseInput<T extends z.ZodType>(schema: T, raw: unknown): z.output<T> {
  return parseRequest(schema, raw, { label: 'The request body', rootDetail: 'The request body must be a JSON object.' });
}

/**
 * Registers an agent (POST /v1/agents, MCP register_agent and start_grading_trial) from the request's JSON
 * (validated against registrationInput): at most 5 attempts per hour
 * and 3 new agents per 24 hours per client IP. A point of the new-agents budget is taken before the call (so
 * concurrent requests cannot overshoot) and given back when no agent was created.
 */
export async function registerAgent(ctx: AppContext, raw: unknown, clientIp: string, limitHeaders?: RateLimitHeaderSink): Promise<RegistrationView> {
  // Every attempt counts, a malformed one too.
  await consumeOrThrow(ctx.limiters.registrationAttempts, clientIp, limitHeaders);
  const input = parseInput(registrationInput, raw);
  await consumeOrThrow(ctx.limiters.newAgents, clientIp, limitHeaders);
  let registered;
  try {
    registered = await ctx.downstream.registerAgent({ ...input, clientIp });
  } catch (error) {
    await giveBack(ctx.limiters.newAgents, clientIp);
    throw error;
  }
  return {
    agentId: registered.agentId,
    apiKey: registered.apiKey,
    tier: registered.tier,
    credits: registered.credits,
    docsUrl: `${ctx.baseUrl}/api-docs`,
    message: registrationMessage(registered.credits, input.commercialOnly === true),
    ...(registered.note ? { note: registered.note } : {}),
  } satisfies Omit<AgentRegistrationResponse, 'tier'> & { tier: RegistrationView['tier'] };
}

function registrationMessage(credits: number, commercialOnly: boolean): string {
  const keep = 'Store the API key now: it is shown only once and cannot be retrieved again.';
  if (commercialOnly) return `${keep} Commercial-only account: no prepaid credits. Start the grading trial with POST /v1/subscriptions/checkout.`;
  if (credits > 0) return `${keep} ${credits} trial credit${credits === 1 ? '' : 's'} granted; see GET /v1/pricing for module costs.`;
  return `${keep} See GET /v1/credits/packs to buy credits.`;
}
