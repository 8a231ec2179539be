import type { BlobStore } from '@cardlens/blob-store';
import { reportKindOf, scansV1, timestampFromDate } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import type { PrismaClient } from '../db';
import { moduleValues } from '../domain/modules';
import { liveReportLink, toReportLinkMessage } from './report-links';

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
  const [stored, reportLink] = await Promise.all([scan.resultKey ? deps.blobs.get(scan.resultKey) : null, liveReportLink(deps.prisma, scan.id)]);
  if (!stored) throw new Error(`result of scan ${scan.id} is missing from the blob store`);
  const completed = scansV1.ScanCompleted.fromJSON(JSON.parse(Buffer.from(stored.bytes).toString('utf8')));
  // The overlay is gone once retention removed it.
  if (completed.grading && scan.overlayKey === null) completed.grading.overlayAvailable = false;
  return { ...base, state: { $case: 'completed', value: completed }, ...(reportLink ? { reportLink } : {}) };
}

/** The grading overlay of the agent's completed scan; not found in every other case. */
export async function getScanOverlay(deps: { prisma: PrismaClient; blobs: BlobStore }, request: { agentId: number; scanId: number }): Promise<Uint8Array> {
  const scan = await findOwnScan(deps.prisma, request.agentId, request.scanId);
  if (scan.status !== 'completed' || !scan.overlayKey) throw notFound();
  const stored = await deps.blobs.get(scan.overlayKey);
  if (!stored) throw new Error(`overlay of scan ${scan.id} is missing from the blob store`);
  return stored.bytes;
}

// ---------------------------------------------------------------------------------------------- report pages

const reportNotFound = () => new AppError('report_not_found', 'This report link does not exist, has expired or was revoked.');

async function liveLinkByToken(prisma: Pick<PrismaClient, 'reportLink'>, token: string) {
  if (reportKindOf(token) !== 'scan') throw reportNotFound();
  const link = await prisma.reportLink.findUnique({ where: { token } });
  if (!link || link.revokedAt !== null || link.expiresAt.getTime() <= Date.now()) throw reportNotFound();
  return link;
}

/** The completed scan a live link points to (for the report page); report_not_found for anything else. */
export async function getReport(deps: { prisma: PrismaClient; blobs: BlobStore }, token: string): Promise<scansV1.GetReportResponse> {
  const link = await liveLinkByToken(deps.prisma, token);
  const scan = await getScan(deps, { agentId: link.agentId, scanId: Number(link.scanId) }).catch((error: unknown) => {
    if (error instanceof AppError && error.code === 'scan_not_found') throw reportNotFound();
    throw error;
  });
  if (scan.state?.$case !== 'completed') throw reportNotFound();
  return { scan: { ...scan, reportLink: toReportLinkMessage(link) }, expiresAt: timestampFromDate(link.expiresAt) };
}

/** The grading overlay of the scan a live link points to. */
export async function getReportOverlay(deps: { prisma: PrismaClient; blobs: BlobStore }, token: string): Promise<Uint8Array> {
  const link = await liveLinkByToken(deps.prisma, token);
  const scan = await deps.prisma.scan.findUnique({ where: { id: link.scanId }, select: { status: true, overlayKey: true } });
  if (!scan || scan.status !== 'completed' || !scan.overlayKey) throw reportNotFound();
  const stored = await deps.blobs.get(scan.overlayKey);
  if (!stored) throw new Error(`overlay of scan ${link.scanId} is missing from the blob store`);
  return stored.bytes;
}
