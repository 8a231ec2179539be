import { Router, type Request, type Response } from 'express';
import { AppError } from '@cardlens/errors';
import type { AppContext } from '../application/context';
import { openReport, openReportOverlay, revokeReport, shareReport, type ReportSubject } from '../application/reports';
import { ShareReportRequest } from '../contract/schemas';
import { parseRequest } from '../contract/validate';
import { authenticate, authOf, sendAuthenticated, setAuthenticatedHeaders, creditsOf } from '../http/authenticated';
import { clientIp } from '../http/client-ip';
import { consumeOrThrow } from '../http/rate-limits';
import { methodNotAllowed, requireJsonBody } from '../http/request';
import { renderGradeReportPage, renderReportGone, renderReportPage, setReportHeaders } from '../http/report-page';

/** `{ expiresInDays }`, optional: an empty body or none takes the service's default lifetime. */
function shareBody(req: Request): number | undefined {
  if (req.body === undefined) {
    // A body the JSON parser did not take (another media type) is refused, not ignored.
    if (req.is('*/*')) requireJsonBody(req);
    return undefined;
  }
  return parseRequest(ShareReportRequest, req.body, { label: 'The request body', rootDetail: 'The request body must be empty or a JSON object with expiresInDays (1-365).' }).expiresInDays;
}

/**
 * Share links: POST/DELETE /v1/scans/{id}/report-link and /v1/grades/{id}/report-link (the owner, with the key),
 * and the report page GET /r/{token} with a scan's overlay GET /r/{token}/overlay.png (anyone holding the link;
 * limited per client IP).
 */
export function reportRoutes(app: AppContext): Router {
  const { downstream, limiters } = app;
  const router = Router();

  for (const [path, kind] of [
    ['/v1/scans/:id/report-link', 'scan'],
    ['/v1/grades/:id/report-link', 'grade'],
  ] as const) {
    const subject = (req: Request): ReportSubject => ({ kind, id: req.params.id });
    router
      .route(path)
      .post(authenticate(downstream, limiters), async (req: Request, res: Response) => {
        const link = await shareReport(app, authOf(res).agent, subject(req), shareBody(req));
        res.setHeader('Location', link.url);
        await sendAuthenticated(res, downstream, 201, link);
      })
      .delete(authenticate(downstream, limiters), async (req: Request, res: Response) => {
        await revokeReport(app, authOf(res).agent, subject(req));
        setAuthenticatedHeaders(res, await creditsOf(res, downstream));
        res.status(204).end();
      })
      .all(methodNotAllowed('POST', 'DELETE'));
  }

  router
    .route('/r/:token')
    .get(async (req: Request, res: Response) => {
      await consumeOrThrow(limiters.open, clientIp(req), res);
      setReportHeaders(res);
      try {
        const token = String(req.params.token);
        const report = await openReport(app, token);
        const options = { token, baseUrl: app.baseUrl, expiresAt: report.expiresAt };
        res.status(200).type('html').send(report.kind === 'scan' ? renderReportPage(report.view, options) : renderGradeReportPage(report.view, options));
      } catch (error) {
        // A person following a dead link gets a page; a program gets the problem record.
        if (error instanceof AppError && error.code === 'report_not_found' && req.accepts(['application/problem+json', 'text/html']) === 'text/html') {
          res.status(404).type('html').send(renderReportGone(app.baseUrl));
          return;
        }
        throw error;
      }
    })
    .all(methodNotAllowed('GET'));

  router
    .route('/r/:token/overlay.png')
    .get(async (req: Request, res: Response) => {
      await consumeOrThrow(limiters.open, clientIp(req), res);
      const png = await openReportOverlay(app, String(req.params.token));
      setReportHeaders(res);
      res.status(200).type('image/png').send(png);
    })
    .all(methodNotAllowed('GET'));

  return router;
}
