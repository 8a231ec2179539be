// Share links of commercial grades' report pages, on PGlite and on Postgres: one live link per grade however
// many issues race, revoked and expired links open nothing, and only the owner's completed grade gets one.
import { fileURLToPath } from 'node:url';
import { expect, it } from '@jest/globals';
import { REPORT_TOKEN_PATTERN } from '@cardlens/contracts';
import { openMigratedPrisma } from '@cardlens/db/testing';
import { isAppError } from '@cardlens/errors';
import { describeOnPgliteAndPostgres } from '@cardlens/testing';
import { PrismaClient } from '../src/db';
import { getGradeReport, issueGradeReportLink, liveGradeReportLink, revokeGradeReportLink } from '../src/use-cases/grade-report-links';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));


const codeOf = (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    () => 'ok',
    (error: unknown) => (isAppError(error) ? error.code : String(error)),
  );

function gradeReportLinkTests(prisma: () => PrismaClient) {
  let nextAgent = 100;
  async function grade(status = 'completed'): Promise<{ agentId: number; gradeId: number }> {
    const agentId = nextAgent++;
    const hash = 'a'.repeat(64);
    const created = await prisma().grade.create({
      data: {
        agentId,
        idempotencyKey: `key-${agentId}`,
        status,
        frontSha256: hash,
        backSha256: hash,
        photoFingerprint: hash,
        frontBytes: 1,
        backBytes: 1,
        lockToken: 1n,
        grading: status === 'completed' ? { grade: 8, subGrades: { centering: 8, corners: 8, edges: 8, surface: 8 } } : undefined,
        completedAt: status === 'completed' ? new Date() : null,
      },
    });
    return { agentId, gradeId: Number(created.id) };
  }

  it('issues a "g" link; a new one retires the old, and the report opens only with the live one', async () => {
    const { agentId, gradeId } = await grade();
    const first = await issueGradeReportLink({ prisma: prisma() }, { agentId, gradeId, expiresInDays: 3 });
    expect(first.token).toMatch(REPORT_TOKEN_PATTERN);
    expect(first.token.startsWith('g')).toBe(true);
    expect((first.expiresAt!.seconds - first.createdAt!.seconds) / 86_400).toBeCloseTo(3, 3);
    const report = await getGradeReport({ prisma: prisma() }, first.token);
    expect(report.grade).toMatchObject({ gradeId, reportLink: { token: first.token } });
    const second = await issueGradeReportLink({ prisma: prisma() }, { agentId, gradeId });
    expect(await codeOf(getGradeReport({ prisma: prisma() }, first.token))).toBe('report_not_found');
    expect((await liveGradeReportLink(prisma(), BigInt(gradeId)))?.token).toBe(second.token);
  });

  it('leaves one live link when issues and revocations race', async () => {
    const { agentId, gradeId } = await grade();
    await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 4 === 3 ? revokeGradeReportLink({ prisma: prisma() }, { agentId, gradeId }) : issueGradeReportLink({ prisma: prisma() }, { agentId, gradeId }))));
    expect((await prisma().gradeReportLink.findMany({ where: { gradeId: BigInt(gradeId), revokedAt: null } })).length).toBeLessThanOrEqual(1);
  });

  it('revoked and expired links open nothing; scan tokens, foreign and unfinished grades are refused', async () => {
    const { agentId, gradeId } = await grade();
    const link = await issueGradeReportLink({ prisma: prisma() }, { agentId, gradeId });
    await expect(revokeGradeReportLink({ prisma: prisma() }, { agentId, gradeId })).resolves.toBe(true);
    await expect(revokeGradeReportLink({ prisma: prisma() }, { agentId, gradeId })).resolves.toBe(false);
    expect(await codeOf(getGradeReport({ prisma: prisma() }, link.token))).toBe('report_not_found');
    const again = await issueGradeReportLink({ prisma: prisma() }, { agentId, gradeId });
    await prisma().gradeReportLink.update({ where: { token: again.token }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await codeOf(getGradeReport({ prisma: prisma() }, again.token))).toBe('report_not_found');
    expect(await codeOf(getGradeReport({ prisma: prisma() }, `s${again.token.slice(1)}`))).toBe('report_not_found');
    expect(await codeOf(issueGradeReportLink({ prisma: prisma() }, { agentId: agentId + 1000, gradeId }))).toBe('grade_not_found');
    for (const status of ['processing', 'refunded']) expect(await codeOf(issueGradeReportLink({ prisma: prisma() }, await grade(status)))).toBe('grade_not_found');
    expect(await codeOf(issueGradeReportLink({ prisma: prisma() }, { agentId, gradeId, expiresInDays: 366 }))).toBe('invalid_body');
  });
}

describeOnPgliteAndPostgres('grade report links', { label: 'grading_report_links', open: (config) => openMigratedPrisma(PrismaClient, serviceDir, config) }, gradeReportLinkTests);
