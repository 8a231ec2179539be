import { accountsV1, commonV1, timestampFromDate } from '@cardlens/contracts';
import { unaryHandler, type GrpcService } from '@cardlens/grpc-kit';
import type { PrismaClient } from '../db';
import { authenticateApiKey } from '../use-cases/authenticate-api-key';
import type { AgentView } from '../use-cases/agent-view';
import { getAgent } from '../use-cases/get-agent';
import { registerAgent, type GrantTrialCredits } from '../use-cases/register-agent';

const POOL_EXHAUSTED_NOTE =
  "Today's global pool of trial credits is used up, so this agent starts with 0 credits (the pool refills at 00:00 UTC). " +
  'Buy credits: list packs with GET /v1/credits/packs, then POST /v1/credits/purchase {"pack": "<key>"} and hand the checkoutUrl to the owner.';

const tierToProto = { anonymous: commonV1.Tier.ANONYMOUS, registered: commonV1.Tier.REGISTERED, paid: commonV1.Tier.PAID } as const;

/** Thin transport: map the request, call one use case, map the answer. */
export function accountsGrpcService(deps: { prisma: PrismaClient; grantTrialCredits: GrantTrialCredits }): GrpcService {
  const implementation: accountsV1.AccountsServiceServer = {
    registerAgent: unaryHandler<accountsV1.RegisterAgentRequest, accountsV1.RegisterAgentResponse>(async (request) => {
      const registered = await registerAgent(deps, {
        name: request.name,
        contactEmail: request.contactEmail ?? null,
        operatorUrl: request.operatorUrl ?? null,
        commercialOnly: request.commercialOnly,
      });
      return {
        agentId: registered.agentId,
        apiKey: registered.apiKey,
        tier: tierToProto[registered.tier],
        credits: registered.credits,
        ...(registered.poolExhausted ? { note: POOL_EXHAUSTED_NOTE } : {}),
        createdAt: timestampFromDate(new Date()),
      };
    }),
    authenticateApiKey: unaryHandler<accountsV1.AuthenticateApiKeyRequest, accountsV1.AuthenticateApiKeyResponse>(async (request) => ({
      agent: agentToProto(await authenticateApiKey(deps, request.apiKey)),
    })),
    getAgent: unaryHandler<accountsV1.GetAgentRequest, accountsV1.GetAgentResponse>(async (request) => ({
      agent: agentToProto(await getAgent(deps, request.agentId)),
    })),
  };
  return { definition: accountsV1.AccountsServiceService, implementation };
}

function agentToProto(agent: AgentView): accountsV1.Agent {
  return {
    agentId: agent.agentId,
    name: agent.name,
    tier: tierToProto[agent.tier],
    ...(agent.keyPrefix ? { keyPrefix: agent.keyPrefix } : {}),
    ...(agent.contactEmail ? { contactEmail: agent.contactEmail } : {}),
    commercialOnly: agent.commercialOnly,
    createdAt: timestampFromDate(agent.createdAt),
  };
}
