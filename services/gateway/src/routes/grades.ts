import { Router, type Request, type Response } from 'express';
import { AppError } from '@cardlens/errors';
import type { Downstream } from '../downstream';
import { authenticate, authOf, sendAuthenticated } from '../http/authenticated';
import { checkGradeModules, parseGradeId, requireIdempotencyKey } from '../http/grade-request';
import { presentGrade } from '../http/grade-view';
import { imageIntake, multipartParts, type ImageFetchSettings, type ImageSource } from '../http/image-intake';
import type { RateLimiters } from '../http/rate-limits';
import { methodNotAllowed } from '../http/request';

/**
 * Commercial grading: POST /v1/grades (synchronous, grading only, charged to the trial or the monthly allowance)
 * and GET /v1/grades/{id}. Photos are never stored by the gateway or logged; the grading service keeps only their
 * SHA-256. A client that disconnects mid-grade does not stop it: the grade is still committed or refunded.
 */
export function gradeRoutes(deps: { downstream: Downstream; limiters: RateLimiters; images: ImageFetchSettings }): Router {
  const { downstream, limiters } = deps;
  const router = Router();
  const intake = imageIntake(deps.images, 'application/json ({frontImageUrl, backImageUrl})');

  router
    .route('/v1/grades')
    .post(authenticate(downstream, limiters), intake.readBody, async (req: Request, res: Response) => {
      const { agent } = authOf(res);
      const idempotencyKey = requireIdempotencyKey(req.get('idempotency-key'));
      const input = req.is('multipart/form-data') ? multipartInput(req) : jsonInput(req.body);
      const photos = await intake.loadPair(input.front, input.back);
      const { grade } = await downstream.gradeCard({ agentId: agent.agentId, idempotencyKey, front: photos.front, back: photos.back });
      await sendAuthenticated(res, downstream, 200, presentGrade(grade));
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/v1/grades/:id')
    .get(authenticate(downstream, limiters), async (req: Request, res: Response) => {
      const { agent } = authOf(res);
      const grade = await downstream.getGrade(agent.agentId, parseGradeId(req.params.id));
      await sendAuthenticated(res, downstream, 200, presentGrade(grade));
    })
    .all(methodNotAllowed('GET'));

  return router;
}

/** JSON form: `frontImageUrl` and `backImageUrl` (both required); `modules`, when present, must be `grade`. */
function jsonInput(body: unknown): { front: ImageSource; back: ImageSource } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('invalid_body', 'The request body must be a JSON object with frontImageUrl and backImageUrl.');
  }
  const { frontImageUrl, backImageUrl, modules } = body as Record<string, unknown>;
  checkGradeModules(modules);
  if (frontImageUrl === undefined || frontImageUrl === null) {
    throw new AppError('missing_front_image', 'frontImageUrl is required: a publicly fetchable absolute http(s) URL of a JPEG or PNG.');
  }
  if (backImageUrl === undefined || backImageUrl === null) {
    throw new AppError('missing_back_image', 'backImageUrl is required: a commercial grade needs both sides of the card.');
  }
  if (typeof frontImageUrl !== 'string') throw new AppError('invalid_body', 'frontImageUrl must be a string (an absolute http(s) URL).');
  if (typeof backImageUrl !== 'string') throw new AppError('invalid_body', 'backImageUrl must be a string (an absolute http(s) URL).');
  return { front: { url: frontImageUrl, field: 'frontImageUrl' }, back: { url: backImageUrl, field: 'backImageUrl' } };
}

/** Multipart form: files `front` and `back` (both required), optional text field `modules` (`grade`). */
function multipartInput(req: Request): { front: ImageSource; back: ImageSource } {
  const { front, back, fields } = multipartParts(req);
  checkGradeModules(fields.modules);
  if (!front) throw new AppError('missing_front_image', 'The front image file is required: send it in the multipart file field "front".');
  if (!back) throw new AppError('missing_back_image', 'The back image file is required: send it in the multipart file field "back" (a commercial grade needs both sides).');
  return { front: { content: front.buffer, field: 'front' }, back: { content: back.buffer, field: 'back' } };
}
