import { gradingV1 } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import { unaryHandler, type GrpcService } from '@cardlens/grpc-kit';
import type { PrismaClient } from '../db';
import { gradeCard, type GradeCardDeps } from '../use-cases/grade-card';
import { getGrade } from '../use-cases/get-grade';
import { getGradeReport, issueGradeReportLink, revokeGradeReportLink } from '../use-cases/grade-report-links';

const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Thin transport. GradeCard is not tied to the call: when the caller goes away (client disconnected, gateway
 * deadline) the grade still runs to its end and is committed or refunded.
 */
export function gradingGrpcService(deps: GradeCardDeps & { prisma: PrismaClient }): GrpcService {
  const implementation: gradingV1.GradingServiceServer = {
    gradeCard: unaryHandler<gradingV1.GradeCardRequest, gradingV1.GradeCardResponse>(async (request) => {
      if (!IDEMPOTENCY_KEY.test(request.idempotencyKey)) {
        throw new AppError(request.idempotencyKey === '' ? 'missing_idempotency_key' : 'invalid_idempotency_key', 'Idempotency-Key must be 1-64 characters of A-Z, a-z, 0-9, "_" and "-".');
      }
      return gradeCard(deps, { agentId: request.agentId, idempotencyKey: request.idempotencyKey, front: request.front, back: request.back });
    }),
    getGrade: unaryHandler<gradingV1.GetGradeRequest, gradingV1.GetGradeResponse>(async (request) => ({
      grade: await getGrade(deps.prisma, { agentId: request.agentId, gradeId: request.gradeId }),
    })),
    issueGradeReportLink: unaryHandler<gradingV1.IssueGradeReportLinkRequest, gradingV1.IssueGradeReportLinkResponse>(async (request) => ({
      link: await issueGradeReportLink({ prisma: deps.prisma, defaultTtlDays: deps.settings.reportLinkTtlDays }, request),
    })),
    revokeGradeReportLink: unaryHandler<gradingV1.RevokeGradeReportLinkRequest, gradingV1.RevokeGradeReportLinkResponse>(async (request) => ({
      revoked: await revokeGradeReportLink(deps, request),
    })),
    getGradeReport: unaryHandler<gradingV1.GetGradeReportRequest, gradingV1.GetGradeReportResponse>(async (request) => getGradeReport(deps, request.token)),
  };
  return { definition: gradingV1.GradingServiceService, implementation };
}
