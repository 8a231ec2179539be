import { busTables, enqueueOutbox } from '@cardlens/bus';
import { events } from '@cardlens/contracts';
import type { Logger } from '@cardlens/telemetry';
import type { PrismaClient } from '../db';
import type { Downstream } from '../downstream';
import { scanJob } from './requeue-interrupted';

export interface SweepQueuedDeps {
  prisma: PrismaClient;
  billing: Pick<Downstream['billing'], 'refund'>;
  logger: Logger;
}

export interface SweepQueuedOptions {
  /** A scan still queued (no worker has started it) this long after it was queued, or requeued, is swept. */
  queuedTooLongMs: number;
  /** How many times a swept scan is queued again before it fails. */
  maxRequeues: number;
}

/** What a scan that never started shows: our failure, so the charge goes back. */
export const QUEUE_EXPIRED_FAILURE = 'The scan was not started: it waited in the queue too long. Its credits were refunded; submit it again.';

/**
 * Finds scans that stayed queued too long: their job is lost (a broker rebuilt without its data) or stuck. Each
 * is queued again, through the outbox, up to maxRequeues times; after that it fails visibly and whatever it was
 * charged is refunded, once (billing refunds a debit at most once, and settledAt records it). A job delivered
 * twice is harmless: the worker skips scans that are no longer queued or processing.
 */
export async function sweepQueuedScans(deps: SweepQueuedDeps, options: SweepQueuedOptions): Promise<{ requeued: number; failed: number; refunded: number }> {
  const { prisma, logger } = deps;
  const cutoff = new Date(Date.now() - options.queuedTooLongMs);
  const stuck = await prisma.scan.findMany({ where: { status: 'queued', updatedAt: { lt: cutoff } }, take: 500 });
  let requeued = 0;
  let failed = 0;
  for (const scan of stuck) {
    const outcome = await prisma.$transaction(async (tx) => {
      // Conditional on the row as read, so a worker starting it meanwhile wins.
      if (scan.requeues < options.maxRequeues) {
        const moved = await tx.scan.updateMany({ where: { id: scan.id, status: 'queued', updatedAt: scan.updatedAt }, data: { requeues: { increment: 1 } } });
        if (moved.count === 0) return 'raced';
        await enqueueOutbox(tx, busTables('scans').outbox, {
          topic: events.scanJobRequested.topic,
          key: String(scan.id),
          value: events.scanJobRequested.encode(scanJob(scan)),
        });
        return 'requeued';
      }
      const moved = await tx.scan.updateMany({
        where: { id: scan.id, status: 'queued', updatedAt: scan.updatedAt },
        data: { status: 'failed', error: QUEUE_EXPIRED_FAILURE, completedAt: new Date(), statusMessage: null, refundDue: true },
      });
      return moved.count === 1 ? 'failed' : 'raced';
    });
    if (outcome === 'requeued') {
      requeued++;
      logger.warn({ scanId: String(scan.id), requeues: scan.requeues + 1 }, 'scan waited in the queue too long; queued again');
    } else if (outcome === 'failed') {
      failed++;
      logger.error({ scanId: String(scan.id), requeues: scan.requeues }, 'scan never started; failed and refunded');
    }
  }
  return { requeued, failed, refunded: await refundDueScans(deps) };
}

/**
 * Refunds what is due, once each: failed scans whose failure was ours (in full) and completed scans whose paid
 * grade could not be given (their grading part); one that cannot be refunded now is retried next round.
 */
async function refundDueScans(deps: SweepQueuedDeps): Promise<number> {
  const due = await deps.prisma.scan.findMany({ where: { status: { in: ['failed', 'completed'] }, refundDue: true, settledAt: null }, take: 500 });
  let refunded = 0;
  for (const scan of due) {
    if (await refundDueScan(deps, scan)) refunded++;
  }
  return refunded;
}

/** Refunds one scan marked refundDue and records it (settledAt); false when billing could not be reached. */
export async function refundDueScan(
  deps: SweepQueuedDeps,
  scan: { id: bigint; agentId: number; status: string; debitEntryId: bigint | null; creditsRefunded: number },
): Promise<boolean> {
  const partial = scan.status === 'completed';
  try {
    if (scan.debitEntryId !== null && (!partial || scan.creditsRefunded > 0)) {
      await deps.billing.refund({
        agentId: scan.agentId,
        debitEntryId: Number(scan.debitEntryId),
        reason: partial ? `scan ${scan.id}: no grade could be given` : `scan ${scan.id} failed through no fault of the customer`,
        ...(partial ? { credits: scan.creditsRefunded } : {}),
      });
    }
    await deps.prisma.scan.update({ where: { id: scan.id }, data: { settledAt: new Date() } });
    return true;
  } catch (error) {
    deps.logger.warn({ err: error, scanId: String(scan.id) }, 'refunding a scan failed; retried next round');
    return false;
  }
}
