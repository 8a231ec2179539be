import { Router, type NextFunction, type Request, type Response } from 'express';
import multer from 'multer';
import { SCAN_IMAGE_LIMITS, type commonV1 } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import type { Downstream } from '../downstream';
import { authenticate, authOf, sendAuthenticated } from '../http/authenticated';
import { methodNotAllowed } from '../http/request';
import type { RateLimiters } from '../http/rate-limits';
import { parseIdempotencyKey, parseModules, parseScanId, requestFingerprint, type FingerprintImage } from '../http/scan-request';
import { presentScan, presentScanAccepted } from '../http/scan-view';
import { fetchImage } from '../images/fetch-image';
import { describeBytes, validateImageBytes } from '../images/validate-image';

export interface ImageFetchSettings {
  /** Time budget for downloading one image URL. */
  fetchTimeoutMs: number;
  /** TEST-ONLY: let image URLs resolve to loopback addresses. */
  allowLoopback: boolean;
}

/** Per image, uploaded or fetched (the API's 15 MB). */
const MAX_IMAGE_BYTES = SCAN_IMAGE_LIMITS.maxBytes;

const MULTIPART_LIMITS = {
  fileSize: MAX_IMAGE_BYTES,
  files: 2,
  fields: 4,
  fieldSize: 4 * 1024,
  parts: 6,
  fieldNameSize: 100,
};

/** A scan image as the request gave it, with the name of the field it came in (for error details). */
type ImageSource = FingerprintImage & { field: string };

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
  const upload = multer({ storage: multer.memoryStorage(), limits: MULTIPART_LIMITS }).fields([
    { name: 'front', maxCount: 1 },
    { name: 'back', maxCount: 1 },
  ]);

  /** Reads the body by content type: JSON is already parsed (app.ts); multipart goes through multer here. */
  const readBody = (req: Request, res: Response, next: NextFunction): void => {
    if (req.is('multipart/form-data')) {
      upload(req, res, (error?: unknown) => next(error === undefined ? undefined : multipartError(error)));
      return;
    }
    if (req.is('application/json')) {
      next();
      return;
    }
    next(new AppError('unsupported_media_type', 'Send the scan request as application/json (image URLs) or multipart/form-data (image files).'));
  };

  const loadImage = async (source: ImageSource): Promise<Uint8Array> => {
    try {
      const bytes = 'url' in source
        ? await fetchImage(source.url, { maxBytes: MAX_IMAGE_BYTES, timeoutMs: images.fetchTimeoutMs, allowLoopbackForTests: images.allowLoopback })
        : source.content;
      await validateImageBytes(bytes, SCAN_IMAGE_LIMITS);
      return bytes;
    } catch (error) {
      // Name the field; the detail of the intake errors never contains the URL or any image data.
      if (error instanceof AppError) throw new AppError(error.code, `${source.field}: ${error.detail}`, { extras: error.extras, cause: error.cause });
      throw error;
    }
  };

  router
    .route('/v1/scans')
    .post(authenticate(downstream, limiters), readBody, async (req: Request, res: Response) => {
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

      // Both images load concurrently; the front's error is reported first whatever finishes first.
      const [front, back] = await Promise.allSettled([loadImage(input.front), input.back ? loadImage(input.back) : Promise.resolve(undefined)]);
      if (front.status === 'rejected') throw front.reason;
      if (back.status === 'rejected') throw back.reason;

      const created = await downstream.createScan({
        agentId: agent.agentId,
        modules,
        front: imageInput(front.value),
        back: back.value === undefined ? undefined : imageInput(back.value),
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
  const content = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { source: { $case: 'content', value: content } };
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
  const files = (req.files ?? {}) as Record<string, Express.Multer.File[] | undefined>;
  const front = files.front?.[0];
  const back = files.back?.[0];
  if (!front) throw new AppError('missing_front_image', 'The front image file is required: send it in the multipart file field "front".');
  const body = (req.body ?? {}) as Record<string, unknown>;
  return {
    modules: body.modules,
    front: { content: front.buffer, field: 'front' },
    back: back ? { content: back.buffer, field: 'back' } : undefined,
  };
}

/** multer's failures as API errors: an oversized file is image_too_large, anything else invalid_body. */
function multipartError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof multer.MulterError) {
    const field = error.field !== undefined ? JSON.stringify(error.field.slice(0, 100)) : undefined;
    switch (error.code) {
      case 'LIMIT_FILE_SIZE':
        return new AppError('image_too_large', `${error.field ?? 'image'}: image is larger than ${describeBytes(MAX_IMAGE_BYTES)}`, { cause: error });
      case 'LIMIT_UNEXPECTED_FILE':
        return new AppError('invalid_body', `Unexpected file field ${field ?? ''}: send one file "front" and at most one file "back".`, { cause: error });
      case 'LIMIT_FILE_COUNT':
      case 'LIMIT_PART_COUNT':
      case 'LIMIT_FIELD_COUNT':
        return new AppError('invalid_body', 'Too many parts: send the files "front" and optionally "back" and the field "modules".', { cause: error });
      case 'LIMIT_FIELD_VALUE':
        return new AppError('invalid_body', `Form field ${field ?? ''} is longer than 4 KB.`, { cause: error });
      default:
        return new AppError('invalid_body', `The multipart body was rejected: ${error.message}.`, { cause: error });
    }
  }
  return new AppError('invalid_body', 'The multipart body is malformed or incomplete.', { cause: error });
}
