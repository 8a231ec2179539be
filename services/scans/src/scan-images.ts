// The images of a prepaid scan in the blob store: `scans/<id>/front.jpg|png` and `scans/<id>/back.jpg|png`.
import type { BlobStore } from '@cardlens/blob-store';
import { AppError } from '@cardlens/errors';

export type ImageType = { contentType: 'image/jpeg' | 'image/png'; extension: 'jpg' | 'png' };
export type StoredImage = ImageType & { key: string; sha256: string; sizeBytes: number };

/** The gateway has validated and decoded the image; this re-checks the magic bytes it stores under. */
export function describeImage(bytes: Uint8Array, side: 'front' | 'back'): ImageType {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return { contentType: 'image/jpeg', extension: 'jpg' };
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= 8 && png.every((b, i) => bytes[i] === b)) return { contentType: 'image/png', extension: 'png' };
  if (bytes.length === 0) throw new AppError(side === 'front' ? 'missing_front_image' : 'invalid_image', `The ${side} image is empty.`);
  throw new AppError('invalid_image', `The ${side} image is not a JPEG or PNG.`);
}

export async function storeImage(blobs: BlobStore, scanId: number, side: 'front' | 'back', bytes: Uint8Array, type: ImageType): Promise<StoredImage> {
  const key = `scans/${scanId}/${side}.${type.extension}`;
  const stored = await blobs.put(key, bytes, type.contentType);
  return { ...type, key, sha256: stored.sha256, sizeBytes: stored.sizeBytes };
}

export async function deleteImages(blobs: BlobStore, scanId: number): Promise<void> {
  await Promise.all(['front.jpg', 'front.png', 'back.jpg', 'back.png'].map((name) => blobs.delete(`scans/${scanId}/${name}`).catch(() => undefined)));
}
