// Retention of scan photos and overlays (PGlite and a local blob folder): finished scans older than the
// retention lose their photos and overlay, their folders go, the result stays readable (the overlay shown as no
// longer available), and newer or unfinished scans are untouched.
import { mkdtempSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LocalDiskBlobStore } from '@cardlens/blob-store';
import { scansV1, commonV1 } from '@cardlens/contracts';
import { createDatabase, migrate, openPrisma, serviceLayout, type Database } from '@cardlens/db';
import { isAppError } from '@cardlens/errors';
import { createLogger } from '@cardlens/telemetry';
import { PrismaClient } from '../src/db';
import { getScan, getScanOverlay } from '../src/use-cases/get-scan';
import { removeExpiredScanBlobs } from '../src/use-cases/remove-expired-blobs';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));
const logger = createLogger('blob-retention', { write: () => {} });
const DAY = 86_400_000;

describe('scan blob retention', () => {
  let database: Database;
  let prisma: PrismaClient;
  let close: () => Promise<void>;
  let root: string;
  let blobs: LocalDiskBlobStore;
  beforeAll(async () => {
    database = await createDatabase({ kind: 'pglite', dataDir: 'memory://' });
    await migrate({ ...serviceLayout(serviceDir), database });
    ({ prisma, close } = await openPrisma(PrismaClient, database));
    root = mkdtempSync(path.join(tmpdir(), 'scan-retention-'));
    blobs = new LocalDiskBlobStore(root);
  });
  afterAll(async () => {
    await close();
    await database.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** A finished scan with stored photos, result and overlay, finished `ageDays` ago. */
  async function finishedScan(ageDays: number, status = 'completed') {
    const created = await prisma.scan.create({ data: { agentId: 1, status: 'processing', modules: ['grade'], creditsCharged: 1 } });
    const id = created.id;
    const front = `scans/${id}/front.jpg`;
    const back = `scans/${id}/back.jpg`;
    const overlay = `scans/${id}/runs/r1/overlay.png`;
    const result = `scans/${id}/runs/r1/result.json`;
    await blobs.put(front, new Uint8Array(1000), 'image/jpeg');
    await blobs.put(back, new Uint8Array(500), 'image/jpeg');
    await blobs.put(overlay, new Uint8Array(10), 'image/png');
    const grading = commonV1.Grading.fromPartial({ grade: 8, overlayAvailable: true });
    await blobs.put(result, Buffer.from(JSON.stringify(scansV1.ScanCompleted.toJSON(scansV1.ScanCompleted.fromPartial({ grading })))), 'application/json');
    await prisma.scan.update({
      where: { id },
      data: { status, frontKey: front, frontBytes: 1000, backKey: back, backBytes: 500, overlayKey: overlay, resultKey: result, completedAt: new Date(Date.now() - ageDays * DAY) },
    });
    return { id, front, back, overlay, result };
  }

  it('removes the photos and overlay of scans finished before the retention, keeps their results and everything newer', async () => {
    const old = await finishedScan(31);
    const oldFailed = await finishedScan(40, 'failed');
    const recent = await finishedScan(29);
    const queued = await prisma.scan.create({ data: { agentId: 1, status: 'queued', modules: ['grade'], creditsCharged: 1, frontKey: 'scans/x/front.jpg' } });

    expect(await removeExpiredScanBlobs({ prisma, blobs, logger }, { retentionDays: 30 })).toBe(2);
    for (const scan of [old, oldFailed]) {
      for (const key of [scan.front, scan.back, scan.overlay]) expect(await blobs.get(key)).toBeNull();
      expect(await blobs.get(scan.result)).not.toBeNull();
      const row = await prisma.scan.findUniqueOrThrow({ where: { id: scan.id } });
      expect(row).toMatchObject({ frontKey: null, backKey: null, overlayKey: null, resultKey: scan.result });
      expect(row.blobsRemovedAt).toBeInstanceOf(Date);
      expect(existsSync(path.join(root, 'scans', String(scan.id), 'runs', 'r1'))).toBe(true);
    }
    for (const key of [recent.front, recent.back, recent.overlay]) expect(await blobs.get(key)).not.toBeNull();
    expect((await prisma.scan.findUniqueOrThrow({ where: { id: queued.id } })).frontKey).toBe('scans/x/front.jpg');

    // The result still reads; the overlay is no longer offered, and asking for it is a 404 like any missing one.
    const read = await getScan({ prisma, blobs }, { agentId: 1, scanId: Number(old.id) });
    expect(read.state?.$case === 'completed' && read.state.value.grading?.overlayAvailable).toBe(false);
    const overlay = await getScanOverlay({ prisma, blobs }, { agentId: 1, scanId: Number(old.id) }).catch((error: unknown) => (isAppError(error) ? error.code : error));
    expect(overlay).toBe('scan_not_found');
    const recentRead = await getScan({ prisma, blobs }, { agentId: 1, scanId: Number(recent.id) });
    expect(recentRead.state?.$case === 'completed' && recentRead.state.value.grading?.overlayAvailable).toBe(true);

    // A second sweep finds nothing more.
    expect(await removeExpiredScanBlobs({ prisma, blobs, logger }, { retentionDays: 30 })).toBe(0);
  });
});
