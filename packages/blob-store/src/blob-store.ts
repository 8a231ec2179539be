import { createHash } from 'node:crypto';

/** What a successful `put` recorded: where the bytes live and what they were. */
export type StoredBlob = {
  /** `local:<key>` for the local-disk adapter, `s3://<bucket>/<prefix><key>` for S3. */
  uri: string;
  /** Lower-case hex SHA-256 of the stored bytes. */
  sha256: string;
  sizeBytes: number;
  contentType: string;
};

export interface BlobStore {
  /** Stores (or overwrites) `key`. */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<StoredBlob>;
  /** The stored bytes, or null when no blob exists under `key`. */
  get(key: string): Promise<{ bytes: Uint8Array; contentType: string } | null>;
  /** Removes `key`; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
  readonly kind: 'local' | 's3';
}

export const MAX_KEY_LENGTH = 512;
const KEY_CHARS = /^[A-Za-z0-9._/-]+$/;

/**
 * Throws a plain Error when `key` is not a safe relative blob path: 1-512 chars of [A-Za-z0-9._/-],
 * no leading '/', and no empty, '.' or '..' segments. Keys are built by our own code, so a bad key is a bug.
 */
export function assertValidKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new Error(`Invalid blob key: must be 1-${MAX_KEY_LENGTH} characters`);
  }
  if (!KEY_CHARS.test(key)) throw new Error(`Invalid blob key ${JSON.stringify(key)}: only [A-Za-z0-9._/-] allowed`);
  if (key.startsWith('/')) throw new Error(`Invalid blob key ${JSON.stringify(key)}: must be relative`);
  for (const segment of key.split('/')) {
    if (segment === '') throw new Error(`Invalid blob key ${JSON.stringify(key)}: empty path segment`);
    if (segment === '.' || segment === '..') throw new Error(`Invalid blob key ${JSON.stringify(key)}: '.' and '..' segments are not allowed`);
  }
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
