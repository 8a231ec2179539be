import type { Logger } from '@cardlens/telemetry';
import type { PrismaClient } from '../db';
import type { Downstream } from '../downstream';
import { settleWithBilling } from './grade-card';

export interface SettleGradesDeps {
  prisma: PrismaClient;
  billing: Downstream['billing'];
  logger: Logger;
}

/**
 * Makes sure no grade's reservation stays open:
 * - a grade still `processing` well after the budget (its process died mid-grade) is refunded; by grade id, so a
 *   reservation whose id was never recorded is found too (and a grade never reserved refunds nothing);
 * - a grade whose outcome billing has not been told (`pending`: billing was down) is committed or refunded.
 * `staleAfterMs` must exceed the budget plus billing's deadline, so no request still running is touched.
 */
export async function settleGrades(deps: SettleGradesDeps, options: { staleAfterMs: number; batch?: number }): Promise<{ abandoned: number; settled: number }> {
  const { prisma } = deps;
  const batch = options.batch ?? 100;
  const cutoff = new Date(Date.now() - options.staleAfterMs);
  const stale = await prisma.grade.findMany({ where: { status: 'processing', createdAt: { lt: cutoff } }, select: { id: true }, take: batch });
  let abandoned = 0;
  for (const { id } of stale) {
    const { count } = await prisma.grade.updateMany({
      where: { id, status: 'processing' },
      data: { status: 'refunded', refundReason: 'abandoned', refundedAt: new Date(), gradesCharged: 0, billing: 'pending' },
    });
    abandoned += count;
  }
  if (abandoned > 0) deps.logger.warn({ abandoned }, 'grades left in flight by a stopped process refunded');

  const pending = await prisma.grade.findMany({ where: { billing: 'pending', status: { in: ['completed', 'refunded'] } }, take: batch, orderBy: { id: 'asc' } });
  let settled = 0;
  for (const grade of pending) {
    const ok = await settleWithBilling(deps, grade, grade.status === 'completed' ? 'commit' : 'refund', grade.refundReason ?? 'refunded');
    if (ok) settled++;
  }
  return { abandoned, settled };
}
