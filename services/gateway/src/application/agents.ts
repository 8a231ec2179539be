import { AppError } from '@cardlens/errors';
import { z } from 'zod';
import { consumeOrThrow, giveBack, type RateLimitHeaderSink } from '../http/rate-limits';
import type { AppContext } from './context';

/** Registration input: the types only; accounts enforces the field rules (lengths, email, URL). */
export const registrationInput = z.object({
  name: z.string({ error: (issue) => (issue.input === undefined ? 'name is required' : 'name must be a string') }).describe('Name of the agent or application (1-100 characters).'),
  // format: what the JSON Schema advertises to clients; accounts checks the address and URL itself.
  contactEmail: z.string({ error: 'contactEmail must be a string or null' }).meta({ format: 'email' }).nullish().describe("The owner's email (up to 256 characters): 3 trial credits instead of 1, and needed for a subscription."),
  operatorUrl: z.string({ error: 'operatorUrl must be a string or null' }).meta({ format: 'uri' }).nullish().describe('Where the operator can be reached (up to 512 characters).'),
  commercialOnly: z.boolean({ error: 'commercialOnly must be a boolean' }).optional().describe('A grading-subscription account: no prepaid trial credits.'),
});
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

/** Parses a value against a use case's input schema; a mismatch is 400 invalid_body listing every problem. */
export function parseInput<T extends z.ZodType>(schema: T, raw: unknown): z.infer<T> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new AppError('invalid_body', 'The request body must be a JSON object.');
  const result = schema.safeParse(raw);
  if (!result.success) throw new AppError('invalid_body', result.error.issues.map((i) => i.message).join('; '));
  return result.data;
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
  };
}

function registrationMessage(credits: number, commercialOnly: boolean): string {
  const keep = 'Store the API key now: it is shown only once and cannot be retrieved again.';
  if (commercialOnly) return `${keep} Commercial-only account: no prepaid credits. Start the grading trial with POST /v1/subscriptions/checkout.`;
  if (credits > 0) return `${keep} ${credits} trial credit${credits === 1 ? '' : 's'} granted; see GET /v1/pricing for module costs.`;
  return `${keep} See GET /v1/credits/packs to buy credits.`;
}
