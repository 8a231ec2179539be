import { newReportToken, REPORT_LINK_DEFAULT_TTL_DAYS, REPORT_LINK_MAX_TTL_DAYS, reportLinkDays, reportLinkExpiry, timestampFromDate, type commonV1 } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import type { PrismaClient } from '../db';

/**
 * Share links to a completed scan's report page (GET /r/{token} at the gateway). Whoever holds the token reads
 * that one report, without an API key, until the link expires or its owner revokes it. One live link per scan:
 * issuing a new one retires the old, so "revoke, then share again" never leaves a forgotten link working.
 */

type Db = Pick<PrismaClient, 'reportLink' | 'scan' | '$queryRaw' | '$transaction'>;
type Tx = Pick<PrismaClient, 'reportLink' | '$queryRaw'>;

const scanNotFound = () => new AppError('scan_not_found', 'No completed scan with this id belongs to your agent.');

export function toReportLinkMessage(link: { token: string; expiresAt: Date; createdAt: Date }): commonV1.ReportLink {
  return { token: link.token, expiresAt: timestampFromDate(link.expiresAt), createdAt: timestampFromDate(link.createdAt) };
}

function ttlDays(requested: number | undefined, fallback: number): number {
  const days = reportLinkDays(requested, fallback);
  if (days === undefined) throw new AppError('invalid_body', `expiresInDays must be a whole number from 1 to ${REPORT_LINK_MAX_TTL_DAYS}.`);
  return days;
}

/**
 * Retires every live link of the scan and issues a new one, inside the caller's transaction. The scan row is
 * locked first so that two concurrent issues serialise and leave exactly one live link.
 */
export async function replaceReportLink(tx: Tx, scan: { id: bigint; agentId: number }, days: number, now = new Date()) {
  await tx.$queryRaw`SELECT id FROM "scans"."scans" WHERE id = ${scan.id} FOR UPDATE`;
  await tx.reportLink.updateMany({ where: { scanId: scan.id, revokedAt: null }, data: { revokedAt: now } });
  return tx.reportLink.create({ data: { token: newReportToken('scan'), scanId: scan.id, agentId: scan.agentId, createdAt: now, expiresAt: reportLinkExpiry(now, days) } });
}

async function ownCompletedScan(prisma: Db, agentId: number, scanId: number) {
  if (!Number.isSafeInteger(scanId) || scanId <= 0) throw scanNotFound();
  const scan = await prisma.scan.findUnique({ where: { id: BigInt(scanId) }, select: { id: true, agentId: true, status: true } });
  if (!scan || scan.agentId !== agentId || scan.status !== 'completed') throw scanNotFound();
  return scan;
}

/** A new share link for the agent's completed scan (the old one, if any, stops working). */
export async function issueReportLink(
  deps: { prisma: Db; defaultTtlDays?: number },
  request: { agentId: number; scanId: number; expiresInDays?: number },
): Promise<commonV1.ReportLink> {
  const days = ttlDays(request.expiresInDays, deps.defaultTtlDays ?? REPORT_LINK_DEFAULT_TTL_DAYS);
  const scan = await ownCompletedScan(deps.prisma, request.agentId, request.scanId);
  const link = await deps.prisma.$transaction((tx) => replaceReportLink(tx, scan, days));
  return toReportLinkMessage(link);
}

/** Revokes the scan's live link; true when there was one. Idempotent. */
export async function revokeReportLink(deps: { prisma: Db }, request: { agentId: number; scanId: number }): Promise<boolean> {
  const scan = await ownCompletedScan(deps.prisma, request.agentId, request.scanId);
  const revoked = await deps.prisma.reportLink.updateMany({ where: { scanId: scan.id, revokedAt: null, expiresAt: { gt: new Date() } }, data: { revokedAt: new Date() } });
  return revoked.count > 0;
}

/** The live link of a scan, for the owner's poll; undefined when it has none. */
export async function liveReportLink(prisma: Pick<PrismaClient, 'reportLink'>, scanId: bigint): Promise<commonV1.ReportLink | undefined> {
  const link = await prisma.reportLink.findFirst({ where: { scanId, revokedAt: null, expiresAt: { gt: new Date() } }, orderBy: { createdAt: 'desc' } });
  return link ? toReportLinkMessage(link) : undefined;
}
