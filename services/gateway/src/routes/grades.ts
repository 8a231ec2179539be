import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../application/context';
import { getGrade, gradeCard } from '../application/grades';
import { GradeCreateJson, GradeCreateMultipart } from '../contract/schemas';
import { parseRequest } from '../contract/validate';
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

/** JSON form, checked by the contract's GradeCreateJson: `frontImageUrl` and `backImageUrl` (both required), optional `modules`. */
function jsonInput(body: unknown): { front: ImageSource; back: ImageSource; modules: unknown } {
  const input = parseRequest(GradeCreateJson, body, { label: 'The request body', rootDetail: 'The request body must be a JSON object with frontImageUrl and backImageUrl.' });
  return { front: { url: input.frontImageUrl, field: 'frontImageUrl' }, back: { url: input.backImageUrl, field: 'backImageUrl' }, modules: input.modules };
}

/** Multipart form, checked by the contract's GradeCreateMultipart: files `front` and `back`, optional field `modules`. */
function multipartInput(req: Request): { front: ImageSource; back: ImageSource; modules: unknown } {
  const { front, back, fields } = multipartParts(req);
  const input = parseRequest(GradeCreateMultipart, { front: front?.buffer, back: back?.buffer, modules: fields.modules }, { label: 'The form' });
  return { front: { content: input.front, field: 'front' }, back: { content: input.back, field: 'back' }, modules: input.modules };
}
