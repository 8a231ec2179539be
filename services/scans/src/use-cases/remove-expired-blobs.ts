import type { BlobStore } from '@cardlens/blob-store';
import { counter, type Logger } from '@cardlens/telemetry';
import type { PrismaClient } from '../db';

/**
 * Retention: the photos and the grading overlay of a finished scan are kept SCAN_BLOB_RETENTION_DAYS after it
 * finished, then removed; the result (identification, grade, values) stays, so polls and report pages keep
 * working without the pictures. Blobs are deleted before the row says so: a sweep that dies in between deletes
 * them again next time (deleting is idempotent).
 */

const removedScans = counter('cardlens_scans_blobs_removed_total', 'Finished scans whose photos and overlay the retention sweep removed.', []);
const removedBytes = counter('cardlens_scans_blob_bytes_removed_total', 'Bytes of scan photos removed by the retention sweep (overlays not counted).', []);

const DAY_MS = 86_400_000;

export async function removeExpiredScanBlobs(
  deps: { prisma: PrismaClient; blobs: BlobStore; logger: Logger },
  options: { retentionDays: number; batchSize?: number; now?: Date },
): Promise<number> {
  const now = options.now ?? new Date();
  const cutoff = new Date(now.getTime() - options.retentionDays * DAY_MS);
  const expired = await deps.prisma.scan.findMany({
    where: { status: { in: ['completed', 'failed'] }, completedAt: { lt: cutoff }, blobsRemovedAt: null },
    select: { id: true, frontKey: true, backKey: true, overlayKey: true, frontBytes: true, backBytes: true },
    orderBy: { completedAt: 'asc' },
    take: options.batchSize ?? 200,
  });
  for (const scan of expired) {
    const keys = [scan.frontKey, scan.backKey, scan.overlayKey].filter((key): key is string => key !== null);
    await Promise.all(keys.map((key) => deps.blobs.delete(key)));
    await deps.prisma.scan.update({ where: { id: scan.id }, data: { frontKey: null, backKey: null, overlayKey: null, blobsRemovedAt: now } });
    removedBytes.inc((scan.frontKey ? (scan.frontBytes ?? 0) : 0) + (scan.backKey ? (scan.backBytes ?? 0) : 0));
  }
  if (expired.length > 0) {
    removedScans.inc(expired.length);
    deps.logger.info({ scans: expired.length, retentionDays: options.retentionDays }, 'scan photos and overlays past retention removed');
  }
  return expired.length;
}
