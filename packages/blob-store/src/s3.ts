import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { assertValidKey, sha256Hex, type BlobStore, type StoredBlob } from './blob-store';

export type S3BlobStoreOptions = {
  bucket: string;
  region: string;
  /** For S3-compatible servers (MinIO, R2, ...), e.g. `http://127.0.0.1:9000`. */
  endpoint?: string;
  /** Path-style URLs (`<endpoint>/<bucket>/<key>`); most S3-compatible servers need this. */
  forcePathStyle?: boolean;
  /** Prepended to every key, e.g. `prod/` (a trailing '/' is added if missing). */
  prefix?: string;
  /** Leave unset in services: the SDK's default provider chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, ...) is used. */
  credentials?: S3ClientConfig['credentials'];
};

/**
 * Blob store on S3 or an S3-compatible server. Objects are written with their ContentType, a
 * ChecksumSHA256 (verified by the server) and `x-amz-meta-sha256` (hex). uri is `s3://<bucket>/<prefix><key>`.
 */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  readonly bucket: string;
  readonly prefix: string;
  private readonly client: S3Client;

  constructor(options: S3BlobStoreOptions) {
    if (!options.bucket) throw new Error('S3BlobStore: bucket is required');
    this.bucket = options.bucket;
    this.prefix = normalizePrefix(options.prefix);
    this.client = new S3Client({
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle ?? false,
      ...(options.credentials ? { credentials: options.credentials } : {}),
    });
  }

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<StoredBlob> {
    const objectKey = this.objectKey(key);
    const sha256 = sha256Hex(bytes);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: objectKey,
        Body: bytes,
        ContentType: contentType,
        ContentLength: bytes.byteLength,
        ChecksumSHA256: Buffer.from(sha256, 'hex').toString('base64'),
        Metadata: { sha256 },
      }),
    );
    return { uri: `s3://${this.bucket}/${objectKey}`, sha256, sizeBytes: bytes.byteLength, contentType };
  }

  async get(key: string): Promise<{ bytes: Uint8Array; contentType: string } | null> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      if (!out.Body) return null;
      return { bytes: await out.Body.transformToByteArray(), contentType: out.ContentType ?? 'application/octet-stream' };
    } catch (e) {
      if (isNoSuchKey(e)) return null;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    // S3 DeleteObject succeeds for missing keys, so this is idempotent.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
  }

  /** Closes the SDK's HTTP connections. */
  destroy(): void {
    this.client.destroy();
  }

  private objectKey(key: string): string {
    assertValidKey(key);
    return this.prefix + key;
  }
}

function normalizePrefix(prefix: string | undefined): string {
  if (!prefix) return '';
  const trimmed = prefix.replace(/\/+$/, '');
  assertValidKey(trimmed);
  return `${trimmed}/`;
}

function isNoSuchKey(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const err = e as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  return err.name === 'NoSuchKey' || err.Code === 'NoSuchKey' || err.$metadata?.httpStatusCode === 404;
}
