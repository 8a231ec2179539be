import type { NextFunction, Request, Response } from 'express';
import multer from 'multer';
import { SCAN_IMAGE_LIMITS } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import { fetchImage } from '../images/fetch-image';
import { describeBytes, validateImageBytes } from '../images/validate-image';
import type { FingerprintImage } from './scan-request';

/**
 * The photo intake shared by POST /v1/scans and POST /v1/grades: multipart uploads (files `front`, `back` and
 * the text field `modules`) or JSON with image URLs fetched through the SSRF-safe fetcher, each photo validated
 * (JPEG/PNG, at most 15 MB, large enough to grade). Photos are never logged.
 */
export interface ImageFetchSettings {
  /** Time budget for downloading one image URL. */
  fetchTimeoutMs: number;
  /** TEST-ONLY: let image URLs resolve to loopback addresses. */
  allowLoopback: boolean;
}

/** Per image, uploaded or fetched (the API's 15 MB). */
export const MAX_IMAGE_BYTES = SCAN_IMAGE_LIMITS.maxBytes;

const MULTIPART_LIMITS = {
  fileSize: MAX_IMAGE_BYTES,
  files: 2,
  fields: 4,
  fieldSize: 4 * 1024,
  parts: 6,
  fieldNameSize: 100,
};

/** A photo as the request gave it, with the name of the field it came in (for error details). */
export type ImageSource = FingerprintImage & { field: string };

/** Reads a photo request's body by content type: JSON is parsed by app.ts; multipart goes through multer here. */
export function photoBodyReader(jsonHint: string) {
  const upload = multer({ storage: multer.memoryStorage(), limits: MULTIPART_LIMITS }).fields([
    { name: 'front', maxCount: 1 },
    { name: 'back', maxCount: 1 },
  ]);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.is('multipart/form-data')) {
      upload(req, res, (error?: unknown) => next(error === undefined ? undefined : multipartError(error)));
      return;
    }
    if (req.is('application/json')) {
      next();
      return;
    }
    next(new AppError('unsupported_media_type', `Send the request as ${jsonHint} or multipart/form-data (image files).`));
  };
}

/** Loads photos for the application layer (REST and MCP alike): uploaded bytes or fetched URLs, validated. */
export type PhotoLoader = ReturnType<typeof photoLoader>;

export function photoLoader(settings: ImageFetchSettings) {
  /** The photo's bytes (fetched for a URL), validated; errors name the field and never carry the URL or bytes. */
  const loadImage = async (source: ImageSource): Promise<Uint8Array> => {
    try {
      const bytes = 'url' in source
        ? await fetchImage(source.url, { maxBytes: MAX_IMAGE_BYTES, timeoutMs: settings.fetchTimeoutMs, allowLoopbackForTests: settings.allowLoopback })
        : source.content;
      await validateImageBytes(bytes, SCAN_IMAGE_LIMITS);
      return bytes;
    } catch (error) {
      if (error instanceof AppError) throw new AppError(error.code, `${source.field}: ${error.detail}`, { extras: error.extras, cause: error.cause });
      throw error;
    }
  };
  return {
    loadImage,
    /** Both photos load concurrently; the front's error is reported first whatever finishes first. */
    async loadPair<B extends ImageSource | undefined>(front: ImageSource, back: B): Promise<{ front: Uint8Array; back: B extends ImageSource ? Uint8Array : Uint8Array | undefined }> {
      const [f, b] = await Promise.allSettled([loadImage(front), back ? loadImage(back) : Promise.resolve(undefined)]);
      if (f.status === 'rejected') throw f.reason;
      if (b.status === 'rejected') throw b.reason;
      return { front: f.value, back: b.value as B extends ImageSource ? Uint8Array : Uint8Array | undefined };
    },
  };
}

/** The uploaded files and text fields of a multipart request read by `readBody`. */
export function multipartParts(req: Request): { front: Express.Multer.File | undefined; back: Express.Multer.File | undefined; fields: Record<string, unknown> } {
  const files = (req.files ?? {}) as Record<string, Express.Multer.File[] | undefined>;
  return { front: files.front?.[0], back: files.back?.[0], fields: (req.body ?? {}) as Record<string, unknown> };
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

/** A validated photo as the gRPC ImageInput of a scan. */
export function imageContent(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
