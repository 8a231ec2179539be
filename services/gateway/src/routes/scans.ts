import { Router, type Request, type Response } from 'express';
import type { commonV1 } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import type { Downstream } from '../downstream';
import { authenticate, authOf, sendAuthenticated } from '../http/authenticated';
import { methodNotAllowed } from '../http/request';
import type { RateLimiters } from '../http/rate-limits';
import { imageContent, imageIntake, multipartParts, type ImageFetchSettings, type ImageSource } from '../http/image-intake';
import { parseIdempotencyKey, parseModules, parseScanId, requestFingerprint } from '../http/scan-request';
import { presentScan, presentScanAccepted } from '../http/scan-view';

export type { ImageFetchSettings } from '../http/image-intake';

interface ScanInput {
  modules: unknown;
  front: ImageSource;
  back: ImageSource | undefined;
}

/**
 * Prepaid scans: POST /v1/scans (JSON with image URLs or multipart uploads), GET /v1/scans/{id} and the grading
 * overlay GET /v1/scans/{id}/overlay. Images and Idempotency-Keys are never logged.
 */
export function scanRoutes(deps: { downstream: Downstream; limiters: RateLimiters; images: ImageFetchSettings }): Router {
  const { downstream, limiters, images } = deps;
  const router = Router();
  const intake = imageIntake(images, 'application/json (image URLs)');

  router
    .route('/v1/scans')
    .post(authenticate(downstream, limiters), intake.readBody, async (req: Request, res: Response) => {
      const { agent } = authOf(res);
      const input = req.is('multipart/form-data') ? multipartInput(req) : jsonInput(req.body);
      const modules = parseModules(input.modules);
      const idempotencyKey = parseIdempotencyKey(req.get('idempotency-key'));
      const fingerprint = requestFingerprint({ modules, front: input.front, back: input.back });

      // A replay is answered from the stored acceptance before any image is fetched again.
      if (idempotencyKey !== undefined) {
        const accepted = await downstream.findIdempotentScan({ agentId: agent.agentId, idempotencyKey, requestFingerprint: fingerprint });
        if (accepted) {
          await sendAuthenticated(res, downstream, 202, presentScanAccepted(accepted), accepted.creditsRemaining);
          return;
        }
      }

      const { front, back } = await intake.loadPair(input.front, input.back);
      const created = await downstream.createScan({
        agentId: agent.agentId,
        modules,
        front: imageInput(front),
        back: back === undefined ? undefined : imageInput(back),
        idempotencyKey,
        requestFingerprint: fingerprint,
      });
      await sendAuthenticated(res, downstream, 202, presentScanAccepted(created), created.creditsRemaining);
    })
    .all(methodNotAllowed('POST'));

  router
    .route('/v1/scans/:id')
    .get(authenticate(downstream, limiters), async (req: Request, res: Response) => {
      const { agent } = authOf(res);
      const scan = await downstream.getScan(agent.agentId, parseScanId(req.params.id));
      await sendAuthenticated(res, downstream, 200, presentScan(scan));
    })
    .all(methodNotAllowed('GET'));

  router
    .route('/v1/scans/:id/overlay')
    .get(authenticate(downstream, limiters), async (req: Request, res: Response) => {
      const auth = authOf(res);
      const png = await downstream.getScanOverlay(auth.agent.agentId, parseScanId(req.params.id));
      const { credits } = await downstream.getBalance(auth.agent.agentId);
      res.setHeader('X-Credits-Remaining', String(credits));
      res.setHeader('X-RateLimit-Policy', auth.rateLimitPolicy);
      res.setHeader('Cache-Control', 'private, max-age=3600');
      res.status(200).type('image/png').send(png);
    })
    .all(methodNotAllowed('GET'));

  return router;
}

function imageInput(bytes: Uint8Array): commonV1.ImageInput {
  return { source: { $case: 'content', value: imageContent(bytes) } };
}

/** JSON form: `frontImageUrl` (required), `backImageUrl` (optional), `modules`; other members are ignored. */
function jsonInput(body: unknown): ScanInput {
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
function multipartInput(req: Request): ScanInput {
  const { front, back, fields } = multipartParts(req);
  if (!front) throw new AppError('missing_front_image', 'The front image file is required: send it in the multipart file field "front".');
  return {
    modules: fields.modules,
    front: { content: front.buffer, field: 'front' },
    back: back ? { content: back.buffer, field: 'back' } : undefined,
  };
}
