import sharp, { type Metadata, type OutputInfo, type Sharp } from 'sharp';
import { AppError } from '@cardlens/errors';
import { photoTooSmallDetail, SCAN_IMAGE_LIMITS } from '@cardlens/contracts';
import type { RgbImage } from './types';

/**
 * Input limits: the API's (contracts), which the gateway already enforced at intake. Pixels are checked on the
 * header before any pixel is decoded, and passed to sharp's limitInputPixels as a second line of defence. A photo
 * under the short-side minimum is `invalid_image` (the image itself is unusable, whatever it shows) rather than
 * `card_not_found`.
 */
export const IMAGE_LIMITS = SCAN_IMAGE_LIMITS;

export type ImageFormat = 'jpeg' | 'png';

export interface ImageInfo {
  format: ImageFormat;
  /** Dimensions as displayed, i.e. after applying the EXIF orientation. */
  width: number;
  height: number;
  /** EXIF orientation tag (1 when absent). */
  orientation: number;
  bytes: number;
}

/** A decoded image plus the map back to original (oriented) pixel coordinates: xOrig = x * scaleX. */
export interface ScaledImage {
  image: RgbImage;
  scaleX: number;
  scaleY: number;
}

const JPEG_MAGIC = [0xff, 0xd8, 0xff];
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export function sniffFormat(bytes: Uint8Array): ImageFormat | null {
  const starts = (magic: number[]): boolean => bytes.length >= magic.length && magic.every((b, i) => bytes[i] === b);
  if (starts(JPEG_MAGIC)) return 'jpeg';
  if (starts(PNG_MAGIC)) return 'png';
  return null;
}

function sharpInput(bytes: Uint8Array): Sharp {
  return sharp(bytes, {
    limitInputPixels: IMAGE_LIMITS.maxPixels,
    failOn: 'error',
    autoOrient: true,
  });
}

/** Validates the bytes and reads the header (no pixel decoding). Throws AppError invalid_image / image_too_large. */
export async function probeImage(bytes: Uint8Array): Promise<ImageInfo> {
  if (bytes.length > IMAGE_LIMITS.maxBytes) {
    throw new AppError('image_too_large', `Image is ${bytes.length} bytes; the limit is ${IMAGE_LIMITS.maxBytes} bytes (15 MB).`);
  }
  const format = sniffFormat(bytes);
  if (!format) throw new AppError('invalid_image', 'The image is not a JPEG or PNG file.');
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (cause) {
    throw new AppError('invalid_image', `The ${format.toUpperCase()} file could not be read.`, { cause });
  }
  if (meta.format !== format || !meta.width || !meta.height) {
    throw new AppError('invalid_image', `The ${format.toUpperCase()} file could not be read.`);
  }
  const orientation = meta.orientation ?? 1;
  const swap = orientation >= 5 && orientation <= 8;
  const width = swap ? meta.height : meta.width;
  const height = swap ? meta.width : meta.height;
  if (width * height > IMAGE_LIMITS.maxPixels) {
    throw new AppError(
      'image_too_large',
      `Image is ${width} x ${height} pixels (${((width * height) / 1e6).toFixed(1)} MP); the limit is ${IMAGE_LIMITS.maxPixels / 1e6} MP.`,
    );
  }
  if (Math.min(width, height) < IMAGE_LIMITS.minShortSide) {
    throw new AppError('invalid_image', photoTooSmallDetail(width, height));
  }
  return { format, width, height, orientation, bytes: bytes.length };
}

/**
 * Decodes to 8-bit sRGB, oriented, at about 1/shrink of the original size (shrink >= 1; 1 = full size). JPEGs use
 * libjpeg's DCT-domain shrink-on-load where sharp allows it (sharp only uses load shrink s when the total shrink
 * is >= s + 1, e.g. shrink 3 loads at 1/2 and reduces 1.5x; shrink 2 decodes at full size and reduces).
 * Grayscale and CMYK inputs come out as RGB; transparency is flattened onto mid grey.
 */
export async function decodeScaled(bytes: Uint8Array, info: ImageInfo, shrink = 1): Promise<ScaledImage> {
  const tw = Math.max(1, Math.round(info.width / shrink));
  const th = Math.max(1, Math.round(info.height / shrink));
  let pipeline = sharpInput(bytes);
  if (tw !== info.width || th !== info.height) pipeline = pipeline.resize(tw, th, { fit: 'fill' });
  let out: { data: Buffer; info: OutputInfo };
  try {
    out = await pipeline
      .flatten({ background: { r: 128, g: 128, b: 128 } })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    if (/pixel limit/i.test(message)) throw new AppError('image_too_large', 'Image exceeds the pixel limit.', { cause });
    throw new AppError('invalid_image', `The ${info.format.toUpperCase()} file could not be decoded.`, { cause });
  }
  const { width, height, channels } = out.info;
  let data = new Uint8Array(out.data.buffer, out.data.byteOffset, out.data.length);
  if (channels !== 3) data = toRgb(data, width * height, channels);
  return { image: { width, height, data }, scaleX: info.width / width, scaleY: info.height / height };
}

function toRgb(src: Uint8Array, n: number, channels: number): Uint8Array {
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    if (channels < 3) {
      const g = src[i * channels]!;
      out[i * 3] = g;
      out[i * 3 + 1] = g;
      out[i * 3 + 2] = g;
    } else {
      out[i * 3] = src[i * channels]!;
      out[i * 3 + 1] = src[i * channels + 1]!;
      out[i * 3 + 2] = src[i * channels + 2]!;
    }
  }
  return out;
}

/**
 * Downsamples by an integer factor: each output pixel averages a g x g grid (g = min(factor, grid)) of input
 * pixels spread over its factor x factor block. grid >= factor is an exact box filter; a smaller grid reads fewer
 * pixels (for detection images, where a little aliasing does not matter but the time does).
 */
export function downsampleRgb(src: RgbImage, factor: number, grid = 3): RgbImage {
  if (factor <= 1) return src;
  const width = Math.floor(src.width / factor);
  const height = Math.floor(src.height / factor);
  const out = new Uint8Array(width * height * 3);
  const sd = src.data;
  const sw = src.width;
  const g = Math.max(1, Math.min(factor, grid));
  const offs: number[] = [];
  for (let k = 0; k < g; k++) offs.push(Math.floor(((k + 0.5) * factor) / g));
  const inv = 1 / (g * g);
  for (let y = 0; y < height; y++) {
    const o = y * width * 3;
    for (let x = 0; x < width; x++) {
      let r = 0;
      let gg = 0;
      let b = 0;
      for (let dy = 0; dy < g; dy++) {
        const rowBase = (y * factor + offs[dy]!) * sw;
        for (let dx = 0; dx < g; dx++) {
          const i = (rowBase + x * factor + offs[dx]!) * 3;
          r += sd[i]!;
          gg += sd[i + 1]!;
          b += sd[i + 2]!;
        }
      }
      out[o + x * 3] = r * inv + 0.5;
      out[o + x * 3 + 1] = gg * inv + 0.5;
      out[o + x * 3 + 2] = b * inv + 0.5;
    }
  }
  return { width, height, data: out };
}

/**
 * The decode scale for grading a photo of unknown content: the card is assumed to fill at least ~25% of the
 * frame (the generator's range is 25-90%), and such a card should keep >= `minCardPx` px of height. JPEGs only
 * shrink on load for factors >= 3 in sharp (smaller factors decode at full size and then resize, which costs more
 * than full size), so factors in (1, 2.5) round down to 1 and [2.5, 3) up to 3.
 */
export function chooseDecodeShrink(info: ImageInfo, minCardPx = 760): number {
  const smallCardPx = Math.sqrt((0.25 * info.width * info.height * 88) / 63);
  const f = smallCardPx / minCardPx;
  if (info.format === 'jpeg') return f < 2.5 ? 1 : Math.max(3, f);
  return f < 1.5 ? 1 : f;
}
