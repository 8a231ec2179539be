import { busTables, enqueueOutbox } from '@cardlens/bus';
import { events, timestampFromDate } from '@cardlens/contracts';
import type { PrismaClient, Scan } from '../db';
import { moduleValues } from '../domain/modules';

/** The scan job of an accepted scan, rebuilt from its row (the images are in the blob store). */
export function scanJob(scan: Scan): Parameters<typeof events.scanJobRequested.encode>[0] {
  const ref = (key: string | null, sha256: string | null, type: string | null, bytes: number | null) =>
    key ? { uri: key, sha256: sha256 ?? '', contentType: type ?? '', sizeBytes: bytes ?? 0 } : undefined;
  return {
    scanId: Number(scan.id),
    agentId: scan.agentId,
    modules: moduleValues(scan.modules),
    front: ref(scan.frontKey, scan.frontSha256, scan.frontType, scan.frontBytes),
    back: ref(scan.backKey, scan.backSha256, scan.backType, scan.backBytes),
    requestedAt: timestampFromDate(scan.createdAt),
  };
}

/**
 * Queues every queued or processing scan again, through the outbox. Used at start-up in the embedded mode,
 * whose in-process bus forgets undelivered jobs when the process ends. A job delivered twice is harmless: the
 * worker skips finished scans and only one run can complete a scan. Returns how many were queued.
 */
export async function requeueInterruptedScans(prisma: PrismaClient): Promise<number> {
  const scans = await prisma.scan.findMany({ where: { status: { in: ['queued', 'processing'] } } });
  for (const scan of scans) {
    await prisma.$transaction((tx) =>
      enqueueOutbox(tx, busTables('scans').outbox, {
        topic: events.scanJobRequested.topic,
        key: String(scan.id),
        value: events.scanJobRequested.encode(scanJob(scan)),
      }),
    );
  }
  return scans.length;
}
