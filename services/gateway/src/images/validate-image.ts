import { createHash } from 'node:crypto';
import { photoTooSmallDetail } from '@cardlens/contracts';
import { AppError } from '@cardlens/errors';
import { fileTypeFromBuffer } from 'file-type';
import sharp, { type Metadata } from 'sharp';

/**
 * Image intake checks for client-supplied scan photos (uploads and fetched URLs alike). The type is judged
 * from the bytes (magic numbers), never from a file name or a declared Content-Type.
 */

export type AcceptedImageType = 'image/jpeg' | 'image/png';

export interface ValidateImageOptions {
  /** Largest accepted encoded size in bytes (the API allows 15 MB = 15 * 1024 * 1024). */
  maxBytes: number;
  /** Largest accepted width * height, checked on the header before any pixel is decoded (e.g. 50_000_000). */
  maxPixels: number;
  /** Smallest accepted short side (as displayed) in pixels: a smaller photo cannot be graded. */
  minShortSide: number;
}

export interface ValidatedImage {
  contentType: AcceptedImageType;
  /** Dimensions as displayed, i.e. after applying any EXIF orientation. */
  width: number;
  height: number;
  /** Lowercase hex SHA-256 of the exact bytes. */
  sha256: string;
  sizeBytes: number;
}

/** file-type's MIME type -> sharp's format name, for the only two types accepted. */
const ACCEPTED: Record<string, { contentType: AcceptedImageType; sharpFormat: Metadata['format'] }> = {
  'image/jpeg': { contentType: 'image/jpeg', sharpFormat: 'jpeg' },
  'image/png': { contentType: 'image/png', sharpFormat: 'png' },
};

const NOT_JPEG_OR_PNG = 'file must be a JPEG or PNG image';
const UNDECODABLE = 'image could not be decoded';

/** "15 MB" for whole mebibytes, otherwise the exact byte count. */
export function describeBytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return Number.isInteger(mb) ? `${mb} MB` : `${bytes} bytes`;
}

function describeMegapixels(pixels: number): string {
  return `${Number((pixels / 1_000_000).toFixed(2))}`;
}

/**
 * Checks that `bytes` is a complete, decodable JPEG or PNG within the size and pixel limits.
 * Throws AppError `image_too_large` (encoded size) or `invalid_image` (type, dimensions, too small to grade, corruption).
 */
export async function validateImageBytes(bytes: Uint8Array, options: ValidateImageOptions): Promise<ValidatedImage> {
  const { maxBytes, maxPixels, minShortSide } = options;
  if (bytes.byteLength > maxBytes) {
    throw new AppError('image_too_large', `image is larger than ${describeBytes(maxBytes)}`);
  }
  if (bytes.byteLength === 0) throw new AppError('invalid_image', NOT_JPEG_OR_PNG);

  let detected: Awaited<ReturnType<typeof fileTypeFromBuffer>>;
  try {
    detected = await fileTypeFromBuffer(bytes);
  } catch (cause) {
    throw new AppError('invalid_image', NOT_JPEG_OR_PNG, { cause });
  }
  const accepted = detected ? ACCEPTED[detected.mime] : undefined;
  if (!accepted) throw new AppError('invalid_image', NOT_JPEG_OR_PNG);

  // Header only: no pixels are decoded here, so the declared size can be checked before any allocation.
  // The pixel limit is lifted for this call only so that a pixel bomb gets the specific message below.
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (cause) {
    throw new AppError('invalid_image', UNDECODABLE, { cause });
  }
  if (meta.format !== accepted.sharpFormat || !(meta.width > 0) || !(meta.height > 0)) {
    throw new AppError('invalid_image', UNDECODABLE);
  }
  if (meta.width * meta.height > maxPixels) {
    throw new AppError('invalid_image', `image exceeds ${describeMegapixels(maxPixels)} megapixels`);
  }

  // Decode every pixel (into a small thumbnail, so memory stays low) to refuse truncated or corrupt files.
  // failOn 'error' rejects truncation and decoder errors but tolerates benign warnings some cameras trigger.
  try {
    await sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error' })
      .resize(64, 64, { fit: 'inside', withoutEnlargement: true })
      .raw()
      .toBuffer();
  } catch (cause) {
    throw new AppError('invalid_image', UNDECODABLE, { cause });
  }

  const oriented = meta.autoOrient;
  const width = oriented?.width ?? meta.width;
  const height = oriented?.height ?? meta.height;
  // Refused here, before the scan is created and charged, not by the engine after a 202.
  if (Math.min(width, height) < minShortSide) throw new AppError('invalid_image', photoTooSmallDetail(width, height));
  return {
    contentType: accepted.contentType,
    width,
    height,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    sizeBytes: bytes.byteLength,
  };
}
