import { scansV1 } from '@cardlens/contracts';
import { unaryHandler, type GrpcService } from '@cardlens/grpc-kit';
import { moduleValues } from '../domain/modules';
import { createScan, findIdempotentScan, type CreateScanDeps, type ScanAcceptance } from '../use-cases/create-scan';
import { getReport, getReportOverlay, getScan, getScanOverlay } from '../use-cases/get-scan';
import { issueReportLink, revokeReportLink } from '../use-cases/report-links';
import { AppError } from '@cardlens/errors';

const accepted = (a: ScanAcceptance): scansV1.CreateScanResponse => ({
  scanId: a.scanId,
  status: scansV1.ScanStatus.QUEUED,
  modules: moduleValues(a.modules),
  creditsCharged: a.creditsCharged,
  creditsRemaining: a.creditsRemaining,
  replayed: a.replayed,
});

/** Thin transport: validate the message shape, call one use case, map the result. */
export function scansGrpcService(deps: CreateScanDeps & { reportLinkTtlDays: number }): GrpcService {
  const implementation: scansV1.ScansServiceServer = {
    createScan: unaryHandler<scansV1.CreateScanRequest, scansV1.CreateScanResponse>(async (request) => {
      if (request.front?.source?.$case === 'url' || request.back?.source?.$case === 'url') {
        throw new AppError('invalid_image_url', 'Image URLs are fetched by the gateway; send the image bytes.');
      }
      const front = request.front?.source?.value as Buffer | undefined;
      if (!front || front.length === 0) throw new AppError('missing_front_image', 'The front image is required.');
      const back = request.back?.source?.value as Buffer | undefined;
      return accepted(
        await createScan(deps, {
          agentId: request.agentId,
          modules: request.modules,
          front,
          ...(back && back.length > 0 ? { back } : {}),
          ...(request.idempotencyKey !== undefined ? { idempotencyKey: request.idempotencyKey } : {}),
          requestFingerprint: request.requestFingerprint,
        }),
      );
    }),
    findIdempotentScan: unaryHandler<scansV1.FindIdempotentScanRequest, scansV1.FindIdempotentScanResponse>(async (request) => {
      const outcome = await findIdempotentScan(deps, request);
      return outcome.kind === 'accepted' ? { accepted: accepted(outcome.acceptance) } : {};
    }),
    getScan: unaryHandler<scansV1.GetScanRequest, scansV1.GetScanResponse>(async (request) => ({ scan: await getScan(deps, request) })),
    getScanOverlay: unaryHandler<scansV1.GetScanOverlayRequest, scansV1.GetScanOverlayResponse>(async (request) => ({ png: Buffer.from(await getScanOverlay(deps, request)) })),
    issueReportLink: unaryHandler<scansV1.IssueReportLinkRequest, scansV1.IssueReportLinkResponse>(async (request) => ({
      link: await issueReportLink({ prisma: deps.prisma, defaultTtlDays: deps.reportLinkTtlDays }, request),
    })),
    revokeReportLink: unaryHandler<scansV1.RevokeReportLinkRequest, scansV1.RevokeReportLinkResponse>(async (request) => ({ revoked: await revokeReportLink(deps, request) })),
    getReport: unaryHandler<scansV1.GetReportRequest, scansV1.GetReportResponse>(async (request) => getReport(deps, request.token)),
    getReportOverlay: unaryHandler<scansV1.GetReportOverlayRequest, scansV1.GetReportOverlayResponse>(async (request) => ({ png: Buffer.from(await getReportOverlay(deps, request.token)) })),
  };
  return { definition: scansV1.ScansServiceService, implementation };
}
