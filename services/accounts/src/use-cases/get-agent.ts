import { AppError } from '@cardlens/errors';
import type { PrismaClient } from '../db';
import { toAgentView, type AgentView } from './agent-view';

export async function getAgent(deps: { prisma: PrismaClient }, agentId: number): Promise<AgentView> {
  const agent = await deps.prisma.agent.findUnique({
    where: { id: agentId },
    include: { apiKeys: { where: { revokedAt: null }, orderBy: { id: 'desc' }, take: 1 } },
  });
  if (!agent || agent.disabledAt) throw new AppError('invalid_api_key', 'The API key is missing, invalid, revoked or disabled.');
  return toAgentView(agent, agent.apiKeys[0]?.keyPrefix ?? null);
}
