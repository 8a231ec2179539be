import type { BlobStore } from '@cardlens/blob-store';
import { scansV1, timestampFromDate } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import type { PrismaClient } from '../db';
import { moduleValues } from '../domain/modules';

const VISIBLE = ['queued', 'processing', 'completed', 'failed'];
const STATUS: Record<string, scansV1.ScanStatus> = {
  queued: scansV1.ScanStatus.QUEUED,
  processing: scansV1.ScanStatus.PROCESSING,
  completed: scansV1.ScanStatus.COMPLETED,
  failed: scansV1.ScanStatus.FAILED,
};

const notFound = () => new AppError('scan_not_found', 'No scan with this id belongs to your agent.');

/** The agent's own accepted scan as the poll shows it; anything else (another agent's, never accepted) is not found. */
async function findOwnScan(prisma: PrismaClient, agentId: number, scanId: number) {
  if (!Number.isSafeInteger(scanId) || scanId <= 0) throw notFound();
  const scan = await prisma.scan.findUnique({ where: { id: BigInt(scanId) } });
  if (!scan || scan.agentId !== agentId || !VISIBLE.includes(scan.status)) throw notFound();
  return scan;
}

export async function getScan(deps: { prisma: PrismaClient; blobs: BlobStore }, request: { agentId: number; scanId: number }): Promise<scansV1.ScanResult> {
  const scan = await findOwnScan(deps.prisma, request.agentId, request.scanId);
  const base = { scanId: Number(scan.id), status: STATUS[scan.status]!, modules: moduleValues(scan.modules), createdAt: timestampFromDate(scan.createdAt) };
  if (scan.status === 'failed') {
    return { ...base, state: { $case: 'failed', value: { error: scan.error ?? 'The scan could not be completed.', progressPercent: scan.progressPercent, ...(scan.statusMessage ? { statusMessage: scan.statusMessage } : {}) } } };
  }
  if (scan.status !== 'completed') {
    return { ...base, state: { $case: 'inFlight', value: { progressPercent: scan.progressPercent, ...(scan.statusMessage ? { statusMessage: scan.statusMessage } : {}) } } };
  }
  const stored = scan.resultKey ? await deps.blobs.get(scan.resultKey) : null;
  if (!stored) throw new Error(`result of scan ${scan.id} is missing from the blob store`);
  return { ...base, state: { $case: 'completed', value: scansV1.ScanCompleted.fromJSON(JSON.parse(Buffer.from(stored.bytes).toString('utf8'))) } };
}

/** The grading overlay of the agent's completed scan; not found in every other case. */
export async function getScanOverlay(deps: { prisma: PrismaClient; blobs: BlobStore }, request: { agentId: number; scanId: number }): Promise<Uint8Array> {
  const scan = await findOwnScan(deps.prisma, request.agentId, request.scanId);
  if (scan.status !== 'completed' || !scan.overlayKey) throw notFound();
  const stored = await deps.blobs.get(scan.overlayKey);
  if (!stored) throw new Error(`overlay of scan ${scan.id} is missing from the blob store`);
  return stored.bytes;
}
