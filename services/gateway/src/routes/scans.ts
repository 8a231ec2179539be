import { Router, type Request, type Response } from 'express';
import { AppError } from '@cardlens/errors';
import type { AppContext } from '../application/context';
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

/** JSON form: `frontImageUrl` (required), `backImageUrl` (optional), `modules`; other members are ignored. */
function jsonInput(body: unknown): Omit<ScanInput, 'idempotencyKey'> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('invalid_body', 'The request body must be a JSON object with frontImageUrl and modules.');
  }
  const { frontImageUrl, backImageUrl, modules } = body as Record<string, unknown>;
  if (frontImageUrl === undefined || frontImageUrl === null) {
    throw new AppError('missing_front_image', 'frontImageUrl is required: a publicly fetchable absolute http(s) URL of a JPEG or PNG.');
  }
  if (typeof frontImageUrl !== 'string') throw new AppError('invalid_body', 'frontImageUrl must be a string (an absolute http(s) URL).');
  if (backImageUrl !== undefined && backImageUrl !== null && typeof backImageUrl !== 'string') {
    throw new AppError('invalid_body', 'backImageUrl must be a string (an absolute http(s) URL) when given.');
  }
  return {
    modules,
    front: { url: frontImageUrl, field: 'frontImageUrl' },
    back: typeof backImageUrl === 'string' ? { url: backImageUrl, field: 'backImageUrl' } : undefined,
  };
}

/** Multipart form: files `front` (required) and `back` (optional), text field `modules`. */
function multipartInput(req: Request): Omit<ScanInput, 'idempotencyKey'> {
  const { front, back, fields } = multipartParts(req);
  if (!front) throw new AppError('missing_front_image', 'The front image file is required: send it in the multipart file field "front".');
  return {
    modules: fields.modules,
    front: { content: front.buffer, field: 'front' },
    back: back ? { content: back.buffer, field: 'back' } : undefined,
  };
}
