import type { gradingV1 } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import type { PrismaClient } from '../db';
import { toCommercialGrade } from '../domain/grade-view';
import { liveGradeReportLink } from './grade-report-links';

/** One of the agent's grades; another agent's grade is as unknown as a missing one. */
export async function getGrade(prisma: PrismaClient, request: { agentId: number; gradeId: number }): Promise<gradingV1.CommercialGrade> {
  const grade = Number.isSafeInteger(request.gradeId) && request.gradeId > 0 ? await prisma.grade.findUnique({ where: { id: BigInt(request.gradeId) } }) : null;
  if (!grade || grade.agentId !== request.agentId) throw new AppError('grade_not_found', 'No grade with this id exists for this agent.');
  const reportLink = grade.status === 'completed' ? await liveGradeReportLink(prisma, grade.id) : undefined;
  return { ...toCommercialGrade(grade), ...(reportLink ? { reportLink } : {}) };
}
