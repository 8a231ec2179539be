import type { BlobStore } from '@cardlens/blob-store';
import { reportKindOf, scansV1, timestampFromDate, type commonV1 } from '@cardlens/contracts';
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

type ScanRow = Awaited<ReturnType<typeof findOwnScan>>;
type Deps = { prisma: PrismaClient; blobs: BlobStore };

export async function getScan(deps: Deps, request: { agentId: number; scanId: number }): Promise<scansV1.ScanResult> {
  const scan = await findOwnScan(deps.prisma, request.agentId, request.scanId);
  return scanResult(deps, scan, scan.status === 'completed' ? await liveReportLink(deps.prisma, scan.id) : undefined);
}

/** A visible scan as the contract shows it, a completed one with `reportLink` (the owner's live one, or a report's). */
async function scanResult(deps: Deps, scan: ScanRow, reportLink: commonV1.ReportLink | undefined): Promise<scansV1.ScanResult> {
  const base = { scanId: Number(scan.id), status: STATUS[scan.status]!, modules: moduleValues(scan.modules), createdAt: timestampFromDate(scan.createdAt) };
  if (scan.status === 'failed') {
    return { ...base, state: { $case: 'failed', value: { error: scan.error ?? 'The scan could not be completed.', progressPercent: scan.progressPercent, ...(scan.statusMessage ? { statusMessage: scan.statusMessage } : {}) } } };
  }
  if (scan.status !== 'completed') {
    return { ...base, state: { $case: 'inFlight', value: { progressPercent: scan.progressPercent, ...(scan.statusMessage ? { statusMessage: scan.statusMessage } : {}) } } };
  }
  const stored = scan.resultKey ? await deps.blobs.get(scan.resultKey) : null;
  if (!stored) throw new Error(`result of scan ${scan.id} is missing from the blob store`);
  const completed = scansV1.ScanCompleted.fromJSON(JSON.parse(Buffer.from(stored.bytes).toString('utf8')));
  // The overlay is gone once retention removed it.
  if (completed.grading && scan.overlayKey === null) completed.grading.overlayAvailable = false;
  return { ...base, state: { $case: 'completed', value: completed }, ...(reportLink ? { reportLink } : {}) };
}

/** The overlay of a completed scan; undefined when it has none (no grading, or removed by retention). */
async function overlayOf(blobs: BlobStore, scan: { id: bigint; status: string; overlayKey: string | null }): Promise<Uint8Array | undefined> {
  if (scan.status !== 'completed' || !scan.overlayKey) return undefined;
  const stored = await blobs.get(scan.overlayKey);
  if (!stored) throw new Error(`overlay of scan ${scan.id} is missing from the blob store`);
  return stored.bytes;
}

/** The grading overlay of the agent's completed scan; not found in every other case. */
export async function getScanOverlay(deps: Deps, request: { agentId: number; scanId: number }): Promise<Uint8Array> {
  const overlay = await overlayOf(deps.blobs, await findOwnScan(deps.prisma, request.agentId, request.scanId));
  if (!overlay) throw notFound();
  return overlay;
}

// ---------------------------------------------------------------------------------------------- report pages

const reportNotFound = () => new AppError('report_not_found', 'This report link does not exist, has expired or was revoked.');

async function liveLinkByToken(prisma: Pick<PrismaClient, 'reportLink'>, token: string) {
  if (reportKindOf(token) !== 'scan') throw reportNotFound();
  const link = await prisma.reportLink.findUnique({ where: { token } });
  if (!link || link.revokedAt !== null || link.expiresAt.getTime() <= Date.now()) throw reportNotFound();
  return link;
}

/** The visible scan a live link points to, or report_not_found. */
async function linkedScan(prisma: PrismaClient, link: { scanId: bigint }) {
  const scan = await prisma.scan.findUnique({ where: { id: link.scanId } });
  if (!scan || scan.status !== 'completed') throw reportNotFound();
  return scan;
}

/** The completed scan a live link points to (for the report page); report_not_found for anything else. */
export async function getReport(deps: Deps, token: string): Promise<scansV1.GetReportResponse> {
  const link = await liveLinkByToken(deps.prisma, token);
  const scan = await scanResult(deps, await linkedScan(deps.prisma, link), toReportLinkMessage(link));
  return { scan, expiresAt: timestampFromDate(link.expiresAt) };
}

/** The grading overlay of the scan a live link points to. */
export async function getReportOverlay(deps: Deps, token: string): Promise<Uint8Array> {
  const link = await liveLinkByToken(deps.prisma, token);
  const overlay = await overlayOf(deps.blobs, await linkedScan(deps.prisma, link));
  if (!overlay) throw reportNotFound();
  return overlay;
}
