import { LocalDiskBlobStore } from './local-disk';
import { S3BlobStore } from './s3';
import type { BlobStore } from './blob-store';
import type { BlobStoreConfig } from './config';

export { assertValidKey, sha256Hex, MAX_KEY_LENGTH, type BlobStore, type StoredBlob } from './blob-store';
export { LocalDiskBlobStore, META_SUFFIX } from './local-disk';
export { S3BlobStore, type S3BlobStoreOptions } from './s3';
export { blobStoreConfigSchema, parseBlobStoreConfig, type BlobStoreConfig } from './config';

/** Builds the adapter the (already validated) config asks for. */
export function createBlobStore(config: BlobStoreConfig): BlobStore {
  if (config.BLOB_STORE === 's3') {
    return new S3BlobStore({
      bucket: config.S3_BUCKET as string, // guaranteed by the schema's refine
      region: config.S3_REGION,
      endpoint: config.S3_ENDPOINT,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      prefix: config.S3_PREFIX,
    });
  }
  return new LocalDiskBlobStore(config.BLOB_DIR);
}
