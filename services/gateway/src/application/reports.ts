import { isoOrNull, reportKindOf, type commonV1 } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import { parseGradeId } from '../http/grade-request';
import { presentGrade, type GradeView } from '../http/grade-view';
import { parseScanId } from '../http/scan-request';
import { presentScan, reportUrl, type ScanCompletedView } from '../http/scan-view';
import type { AppContext, Caller } from './context';

/**
 * Share links to report pages of completed scans and commercial grades: issue (POST .../report-link, MCP
 * share_report), revoke (DELETE, MCP revoke_report) and open (GET /r/{token}, no key: the token is the
 * capability; its first letter says whether it opens a scan or a grade).
 */

export interface ReportLinkView {
  url: string;
  expiresAt: string | null;
  createdAt: string | null;
}

export type ReportSubject = { kind: 'scan'; id: unknown } | { kind: 'grade'; id: unknown };


const idOf = (subject: ReportSubject): number => {
  const raw = typeof subject.id === 'number' ? String(subject.id) : subject.id;
  return subject.kind === 'scan' ? parseScanId(raw) : parseGradeId(typeof raw === 'string' ? raw.replace(/^grade_/, '') : raw);
};

const linkView = (ctx: AppContext, link: commonV1.ReportLink): ReportLinkView => ({
  url: reportUrl(ctx.baseUrl, link.token),
  expiresAt: isoOrNull(link.expiresAt),
  createdAt: isoOrNull(link.createdAt),
});

/** A new link to the caller's completed scan or grade; the link it had stops working. */
export async function shareReport(ctx: AppContext, caller: Caller, subject: ReportSubject, expiresInDays: number | undefined): Promise<ReportLinkView> {
  const id = idOf(subject);
  const link =
    subject.kind === 'scan'
      ? await ctx.downstream.issueReportLink(caller.agentId, id, expiresInDays)
      : await ctx.downstream.issueGradeReportLink(caller.agentId, id, expiresInDays);
  return linkView(ctx, link);
}

/** Revokes the live link (idempotent); whether one was live. */
export async function revokeReport(ctx: AppContext, caller: Caller, subject: ReportSubject): Promise<{ revoked: boolean }> {
  const id = idOf(subject);
  const revoked = subject.kind === 'scan' ? await ctx.downstream.revokeReportLink(caller.agentId, id) : await ctx.downstream.revokeGradeReportLink(caller.agentId, id);
  return { revoked };
}

const gone = () => new AppError('report_not_found', 'This report link does not exist, has expired or was revoked.');

export type OpenedReport = { kind: 'scan'; view: ScanCompletedView; expiresAt: string | null } | { kind: 'grade'; view: GradeView; expiresAt: string | null };

/** What a live link shows, as the API shows it to the owner, and when the link expires. */
export async function openReport(ctx: AppContext, token: string): Promise<OpenedReport> {
  const kind = reportKindOf(token);
  if (kind === 'scan') {
    const report = await ctx.downstream.getReport(token);
    const view = report.scan ? presentScan(report.scan, ctx.baseUrl) : undefined;
    if (view?.status !== 'completed') throw gone();
    return { kind, view, expiresAt: isoOrNull(report.expiresAt) };
  }
  if (kind === 'grade') {
    const report = await ctx.downstream.getGradeReport(token);
    const view = report.grade ? presentGrade(report.grade, ctx.baseUrl) : undefined;
    if (view?.status !== 'completed' || !view.grading) throw gone();
    return { kind, view, expiresAt: isoOrNull(report.expiresAt) };
  }
  throw gone();
}

/** The overlay shown on a scan's report page (grades keep no images: none). */
export async function openReportOverlay(ctx: AppContext, token: string): Promise<Buffer> {
  if (reportKindOf(token) !== 'scan') throw gone();
  return ctx.downstream.getReportOverlay(token);
}
