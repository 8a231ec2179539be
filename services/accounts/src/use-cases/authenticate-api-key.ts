import { AppError } from '@cardlens/errors';
import type { PrismaClient } from '../db';
import { hashApiKey, hashesEqual, isWellFormedApiKey } from '../domain/api-key';
import { toAgentView, type AgentView } from './agent-view';

const INVALID = 'The API key is missing, invalid, revoked or disabled.';

/** Resolves a presented key to its agent. Every failure looks the same to the caller. */
export async function authenticateApiKey(deps: { prisma: PrismaClient }, presented: string): Promise<AgentView> {
  if (!isWellFormedApiKey(presented)) throw new AppError('invalid_api_key', INVALID);
  const hash = hashApiKey(presented);
  const key = await deps.prisma.apiKey.findUnique({ where: { keyHash: hash }, include: { agent: true } });
  // The lookup is by hash, so timing reveals nothing about the plaintext; the compare is belt and braces.
  if (!key || !hashesEqual(key.keyHash, hash) || key.revokedAt || key.agent.disabledAt) {
    throw new AppError('invalid_api_key', INVALID);
  }
  return toAgentView(key.agent, key.keyPrefix);
}
