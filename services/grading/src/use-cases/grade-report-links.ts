import { newReportToken, REPORT_LINK_DEFAULT_TTL_DAYS, REPORT_LINK_MAX_TTL_DAYS, reportKindOf, reportLinkDays, reportLinkExpiry, timestampFromDate, type commonV1, type gradingV1 } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import type { PrismaClient } from '../db';
import { toCommercialGrade } from '../domain/grade-view';

/**
 * Share links to a completed commercial grade's report page (GET /r/{token} at the gateway), as the scans
 * service has for scans: issued with every completed grade, one live link per grade (a new one retires the
 * old), revocable, expiring; the token opens that one report without an API key.
 */

type Tx = Pick<PrismaClient, 'gradeReportLink' | '$queryRaw'>;

const gradeNotFound = () => new AppError('grade_not_found', 'No completed grade with this id exists for this agent.');
const reportNotFound = () => new AppError('report_not_found', 'This report link does not exist, has expired or was revoked.');

const toMessage = (link: { token: string; expiresAt: Date; createdAt: Date }): commonV1.ReportLink => ({
  token: link.token,
  expiresAt: timestampFromDate(link.expiresAt),
  createdAt: timestampFromDate(link.createdAt),
});

/** Retires the grade's live links and issues a new one in the caller's transaction (the grade row locked first). */
export async function replaceGradeReportLink(tx: Tx, grade: { id: bigint; agentId: number }, days: number, now = new Date()) {
  await tx.$queryRaw`SELECT id FROM "grading"."grades" WHERE id = ${grade.id} FOR UPDATE`;
  await tx.gradeReportLink.updateMany({ where: { gradeId: grade.id, revokedAt: null }, data: { revokedAt: now } });
  return tx.gradeReportLink.create({ data: { token: newReportToken('grade'), gradeId: grade.id, agentId: grade.agentId, createdAt: now, expiresAt: reportLinkExpiry(now, days) } });
}

async function ownCompletedGrade(prisma: PrismaClient, agentId: number, gradeId: number) {
  if (!Number.isSafeInteger(gradeId) || gradeId <= 0) throw gradeNotFound();
  const grade = await prisma.grade.findUnique({ where: { id: BigInt(gradeId) }, select: { id: true, agentId: true, status: true } });
  if (!grade || grade.agentId !== agentId || grade.status !== 'completed') throw gradeNotFound();
  return grade;
}

export async function issueGradeReportLink(
  deps: { prisma: PrismaClient; defaultTtlDays?: number },
  request: { agentId: number; gradeId: number; expiresInDays?: number },
): Promise<commonV1.ReportLink> {
  const days = reportLinkDays(request.expiresInDays, deps.defaultTtlDays ?? REPORT_LINK_DEFAULT_TTL_DAYS);
  if (days === undefined) throw new AppError('invalid_body', `expiresInDays must be a whole number from 1 to ${REPORT_LINK_MAX_TTL_DAYS}.`);
  const grade = await ownCompletedGrade(deps.prisma, request.agentId, request.gradeId);
  return toMessage(await deps.prisma.$transaction((tx) => replaceGradeReportLink(tx, grade, days)));
}

export async function revokeGradeReportLink(deps: { prisma: PrismaClient }, request: { agentId: number; gradeId: number }): Promise<boolean> {
  const grade = await ownCompletedGrade(deps.prisma, request.agentId, request.gradeId);
  const revoked = await deps.prisma.gradeReportLink.updateMany({ where: { gradeId: grade.id, revokedAt: null, expiresAt: { gt: new Date() } }, data: { revokedAt: new Date() } });
  return revoked.count > 0;
}

/** The grade's live link, for its owner's reads; undefined when it has none. */
export async function liveGradeReportLink(prisma: Pick<PrismaClient, 'gradeReportLink'>, gradeId: bigint): Promise<commonV1.ReportLink | undefined> {
  const link = await prisma.gradeReportLink.findFirst({ where: { gradeId, revokedAt: null, expiresAt: { gt: new Date() } }, orderBy: { createdAt: 'desc' } });
  return link ? toMessage(link) : undefined;
}

/** The completed grade a live link points to; report_not_found for anything else. */
export async function getGradeReport(deps: { prisma: PrismaClient }, token: string): Promise<gradingV1.GetGradeReportResponse> {
  if (reportKindOf(token) !== 'grade') throw reportNotFound();
  const link = await deps.prisma.gradeReportLink.findUnique({ where: { token } });
  if (!link || link.revokedAt !== null || link.expiresAt.getTime() <= Date.now()) throw reportNotFound();
  const grade = await deps.prisma.grade.findUnique({ where: { id: link.gradeId } });
  if (!grade || grade.status !== 'completed') throw reportNotFound();
  return { grade: { ...toCommercialGrade(grade), reportLink: toMessage(link) }, expiresAt: timestampFromDate(link.expiresAt) };
}
