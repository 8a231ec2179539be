import { describe, expect, it } from '@jest/globals';
import { createBlobStore, LocalDiskBlobStore, parseBlobStoreConfig, S3BlobStore } from '../src/index';

describe('blob store config', () => {
  it('defaults to the local store under .data/blobs', () => {
    const config = parseBlobStoreConfig({});
    expect(config).toMatchObject({ BLOB_STORE: 'local', BLOB_DIR: '.data/blobs', S3_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: false });
    const store = createBlobStore(config);
    expect(store.kind).toBe('local');
    expect(store).toBeInstanceOf(LocalDiskBlobStore);
  });

  it('rejects s3 without a bucket with a clear message', () => {
    expect(() => parseBlobStoreConfig({ BLOB_STORE: 's3' })).toThrow(/S3_BUCKET is required when BLOB_STORE=s3/);
    expect(() => parseBlobStoreConfig({ BLOB_STORE: 's3', S3_BUCKET: '' })).toThrow(/S3_BUCKET/);
  });

  it('builds an S3 store from env', () => {
    const config = parseBlobStoreConfig({ BLOB_STORE: 's3', S3_BUCKET: 'b', S3_ENDPOINT: 'http://127.0.0.1:9000', S3_FORCE_PATH_STYLE: 'true' });
    expect(config.S3_FORCE_PATH_STYLE).toBe(true);
    const store = createBlobStore(config);
    expect(store.kind).toBe('s3');
    expect(store).toBeInstanceOf(S3BlobStore);
    (store as S3BlobStore).destroy();
  });

  it('rejects unknown store kinds and bad booleans', () => {
    expect(() => parseBlobStoreConfig({ BLOB_STORE: 'gcs' })).toThrow();
    expect(() => parseBlobStoreConfig({ S3_FORCE_PATH_STYLE: 'maybe' })).toThrow();
  });
});
