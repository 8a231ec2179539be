import { AppError } from '@cardlens/errors';
import type { PrismaClient } from '../db';
import { generateApiKey } from '../domain/api-key';
import { parseRegistration } from '../domain/registration-rules';

export type Tier = 'anonymous' | 'registered';

/** Billing's answer to a trial grant; a function, because billing is another service reached over gRPC. */
export type GrantTrialCredits = (request: { agentId: number; tier: Tier; commercialOnly: boolean }) => Promise<{ creditsGranted: number; poolExhausted: boolean }>;

export interface RegisteredAgent {
  agentId: number;
  apiKey: string;
  tier: Tier;
  credits: number;
  poolExhausted: boolean;
  commercialOnly: boolean;
}

/**
 * Creates the agent and its key, then asks billing for the trial grant. If billing cannot answer, the agent is
 * removed again (its key was never shown to anyone) so a retry starts clean.
 */
export async function registerAgent(
  deps: { prisma: PrismaClient; grantTrialCredits: GrantTrialCredits },
  input: unknown,
): Promise<RegisteredAgent> {
  const request = parseRegistration(input);
  const tier: Tier = request.contactEmail ? 'registered' : 'anonymous';
  const key = generateApiKey();

  const agent = await deps.prisma.agent.create({
    data: {
      name: request.name,
      contactEmail: request.contactEmail ?? null,
      operatorUrl: request.operatorUrl ?? null,
      commercialOnly: request.commercialOnly,
      tier,
      apiKeys: { create: { keyHash: key.hash, keyPrefix: key.displayPrefix } },
    },
  });

  if (request.commercialOnly) {
    return { agentId: agent.id, apiKey: key.plaintext, tier, credits: 0, poolExhausted: false, commercialOnly: true };
  }

  try {
    const grant = await deps.grantTrialCredits({ agentId: agent.id, tier, commercialOnly: false });
    return { agentId: agent.id, apiKey: key.plaintext, tier, credits: grant.creditsGranted, poolExhausted: grant.poolExhausted, commercialOnly: false };
  } catch (error) {
    await deps.prisma.agent.delete({ where: { id: agent.id } });
    if (error instanceof AppError) throw error;
    throw new AppError('service_unavailable', 'Registration could not be completed. It is safe to retry.', { cause: error });
  }
}
