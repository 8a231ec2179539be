import { Router, type Request, type Response } from 'express';
import { AppError } from '@cardlens/errors';
import type { AppContext } from '../application/context';
import { getGrade, gradeCard, gradeUrls } from '../application/grades';
import { authenticate, authOf, sendAuthenticated } from '../http/authenticated';
import { requireIdempotencyKey } from '../http/grade-request';
import { multipartParts, photoBodyReader, type ImageSource } from '../http/image-intake';
import { methodNotAllowed } from '../http/request';

/**
 * Commercial grading: POST /v1/grades (synchronous, grading only, charged to the trial or the monthly allowance)
 * and GET /v1/grades/{id}. Photos are never stored by the gateway or logged; the grading service keeps only their
 * SHA-256. A client that disconnects mid-grade does not stop it: the grade is still committed or refunded.
 */
export function gradeRoutes(app: AppContext): Router {
  const { downstream, limiters } = app;
  const router = Router();
  const readBody = photoBodyReader('application/json ({frontImageUrl, backImageUrl})');

  router
    .route('/v1/grades')
    .post(authenticate(downstream, limiters), readBody, async (req: Request, res: Response) => {
      const idempotencyKey = requireIdempotencyKey(req.get('idempotency-key'));
      const input = req.is('multipart/form-data') ? multipartInput(req) : jsonInput(req.body);
      await sendAuthenticated(res, downstream, 200, await gradeCard(app, authOf(res).agent, { idempotencyKey, ...input }));
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/v1/grades/:id')
    .get(authenticate(downstream, limiters), async (req: Request, res: Response) => {
      await sendAuthenticated(res, downstream, 200, await getGrade(app, authOf(res).agent, req.params.id));
    })
    .all(methodNotAllowed('GET'));

  return router;
}

/** JSON form: `frontImageUrl` and `backImageUrl` (both required) and an optional `modules`. */
function jsonInput(body: unknown): { front: ImageSource; back: ImageSource; modules: unknown } {
  const modules = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).modules : undefined;
  return { ...gradeUrls(body), modules };
}

/** Multipart form: files `front` and `back` (both required), optional text field `modules` (`grade`). */
function multipartInput(req: Request): { front: ImageSource; back: ImageSource; modules: unknown } {
  const { front, back, fields } = multipartParts(req);
  if (!front) throw new AppError('missing_front_image', 'The front image file is required: send it in the multipart file field "front".');
  if (!back) throw new AppError('missing_back_image', 'The back image file is required: send it in the multipart file field "back" (a commercial grade needs both sides).');
  return { front: { content: front.buffer, field: 'front' }, back: { content: back.buffer, field: 'back' }, modules: fields.modules };
}
