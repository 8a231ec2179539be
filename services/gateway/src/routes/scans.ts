import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../application/context';
import { ScanCreateJson, ScanCreateMultipart } from '../contract/schemas';
import { parseRequest } from '../contract/validate';
import { getScanJson, submitScan, type ScanInput } from '../application/scans';
import { authenticate, authOf, creditsOf, sendAuthenticated, setAuthenticatedHeaders } from '../http/authenticated';
import { methodNotAllowed } from '../http/request';
import { multipartParts, photoBodyReader } from '../http/image-intake';
import { parseIdempotencyKey, parseScanId } from '../http/scan-request';

export type { ImageFetchSettings } from '../http/image-intake';

/**
 * Prepaid scans: POST /v1/scans (JSON with image URLs or multipart uploads), GET /v1/scans/{id} and the grading
 * overlay GET /v1/scans/{id}/overlay. Images and Idempotency-Keys are never logged.
 */
export function scanRoutes(app: AppContext): Router {
  const { downstream, limiters } = app;
  const router = Router();
  const readBody = photoBodyReader('application/json (image URLs)');

  router
    .route('/v1/scans')
    .post(authenticate(downstream, limiters), readBody, async (req: Request, res: Response) => {
      const input = req.is('multipart/form-data') ? multipartInput(req) : jsonInput(req.body);
      const idempotencyKey = parseIdempotencyKey(req.get('idempotency-key'));
      const { view, creditsRemaining } = await submitScan(app, authOf(res).agent, { ...input, idempotencyKey });
      // Where to poll (RFC 9110 §15.3.3): the same URL as links.self, absolute.
      res.setHeader('Location', `${app.baseUrl}${view.links.self}`);
      await sendAuthenticated(res, downstream, 202, view, creditsRemaining);
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/v1/scans/:id')
    .get(authenticate(downstream, limiters), async (req: Request, res: Response) => {
      const json = await getScanJson(app, authOf(res).agent, req.params.id);
      setAuthenticatedHeaders(res, await creditsOf(res, downstream));
      res.status(200).type('json').send(json);
    })
    .all(methodNotAllowed('GET'));

  router
    .route('/v1/scans/:id/overlay')
    .get(authenticate(downstream, limiters), async (req: Request, res: Response) => {
      const auth = authOf(res);
      const png = await downstream.getScanOverlay(auth.agent.agentId, parseScanId(req.params.id));
      setAuthenticatedHeaders(res, await creditsOf(res, downstream));
      res.setHeader('Cache-Control', 'private, max-age=3600');
      res.status(200).type('image/png').send(png);
    })
    .all(methodNotAllowed('GET'));

  return router;
}

const BODY = { label: 'The request body', rootDetail: 'The request body must be a JSON object with frontImageUrl and modules.' };

/** JSON form, checked by the contract's ScanCreateJson (other members are ignored). */
function jsonInput(body: unknown): Omit<ScanInput, 'idempotencyKey'> {
  const { frontImageUrl, backImageUrl, modules } = parseRequest(ScanCreateJson, body, BODY);
  return {
    modules,
    front: { url: frontImageUrl, field: 'frontImageUrl' },
    back: typeof backImageUrl === 'string' ? { url: backImageUrl, field: 'backImageUrl' } : undefined,
  };
}

/** Multipart form, checked by the contract's ScanCreateMultipart: files `front` (required) and `back`, field `modules`. */
function multipartInput(req: Request): Omit<ScanInput, 'idempotencyKey'> {
  const { front, back, fields } = multipartParts(req);
  const input = parseRequest(ScanCreateMultipart, { front: front?.buffer, back: back?.buffer, modules: fields.modules }, { label: 'The form' });
  return {
    modules: input.modules,
    front: { content: input.front, field: 'front' },
    back: input.back ? { content: input.back, field: 'back' } : undefined,
  };
}
