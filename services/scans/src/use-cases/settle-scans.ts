import type { BlobStore } from '@cardlens/blob-store';
import { AppError } from '@cardlens/errors';
import type { Logger } from '@cardlens/telemetry';
import type { Prisma, PrismaClient } from '../db';
import type { Downstream } from '../downstream';
import { deleteImages } from '../scan-images';

export interface SettleDeps {
  prisma: PrismaClient;
  blobs: BlobStore;
  billing: Downstream['billing'];
  logger: Logger;
}

/**
 * A charged scan that will not run: abandoned (never shown), and its Idempotency-Key, if any, remembers the
 * refund (idempotency_conflict from then on). Settlement does the refund.
 */
export async function markChargedScanAbandoned(tx: Prisma.TransactionClient, scanId: bigint): Promise<void> {
  await tx.scan.update({ where: { id: scanId }, data: { status: 'abandoned', statusMessage: null } });
  await tx.idempotencyKey.updateMany({ where: { scanId }, data: { state: 'refunded' } });
}

/**
 * Refunds whatever an abandoned scan was charged, once. When the debit's entry id was never recorded (a crash
 * or timeout around the debit), the debit is re-issued with the same ledger key: billing replays the original
 * entry if there was one, or charges now, and the refund that follows leaves the balance as it was either way.
 * A re-issued debit refused for lack of credits proves there was no charge.
 */
export async function settleAbandonedScan(deps: SettleDeps, scanId: bigint): Promise<void> {
  const scan = await deps.prisma.scan.findUnique({ where: { id: scanId } });
  if (!scan || scan.status !== 'abandoned' || scan.settledAt) return;
  let entryId = scan.debitEntryId;
  if (entryId === null) {
    try {
      const debit = await deps.billing.debit({
        agentId: scan.agentId,
        amount: scan.creditsCharged,
        causeType: 'scan',
        causeId: String(scan.id),
        idempotencyKey: `scan:${scan.id}`,
      });
      entryId = BigInt(debit.entryId);
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'insufficient_credits')) throw error;
    }
  }
  if (entryId !== null) {
    await deps.billing.refund({ agentId: scan.agentId, debitEntryId: Number(entryId), reason: `scan ${scan.id} not queued` });
  }
  await deps.prisma.scan.update({ where: { id: scan.id }, data: { debitEntryId: entryId, settledAt: new Date() } });
  await deleteImages(deps.blobs, Number(scan.id));
}

/**
 * The periodic clean-up: scans left pending by a crash longer than `staleAfterMs` are abandoned (their keys
 * remember the refund), every unsettled abandoned scan is refunded, and expired idempotency keys are removed.
 * Returns how many scans it settled.
 */
export async function settleStaleScans(deps: SettleDeps, options: { staleAfterMs: number }): Promise<number> {
  const cutoff = new Date(Date.now() - options.staleAfterMs);
  const stale = await deps.prisma.scan.findMany({ where: { status: 'pending', updatedAt: { lt: cutoff } }, select: { id: true } });
  for (const { id } of stale) {
    await deps.prisma.$transaction(async (tx) => {
      // Conditional, so a request finishing right now wins.
      const moved = await tx.scan.updateMany({ where: { id, status: 'pending' }, data: { status: 'abandoned' } });
      if (moved.count === 1) await tx.idempotencyKey.updateMany({ where: { scanId: id, state: 'pending' }, data: { state: 'refunded' } });
    });
  }
  const unsettled = await deps.prisma.scan.findMany({ where: { status: 'abandoned', settledAt: null }, select: { id: true }, take: 500 });
  let settled = 0;
  for (const { id } of unsettled) {
    try {
      await settleAbandonedScan(deps, id);
      settled++;
    } catch (error) {
      deps.logger.warn({ err: error, scanId: String(id) }, 'settling an abandoned scan failed; retried next round');
    }
  }
  await deps.prisma.idempotencyKey.deleteMany({ where: { expiresAt: { lte: new Date() } } });
  return settled;
}
