import type { PrismaClient } from '../db';

export async function getBalance(deps: { prisma: PrismaClient }, agentId: number): Promise<{ credits: number; hasPurchased: boolean }> {
  const account = await deps.prisma.creditAccount.findUnique({ where: { agentId } });
  return { credits: account?.balance ?? 0, hasPurchased: account?.hasPurchased ?? false };
}
