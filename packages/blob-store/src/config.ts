import { z } from 'zod';

const emptyToUndefined = (v: unknown) => (v === '' ? undefined : v);

/** Environment variables that pick and configure the blob store. */
export const blobStoreConfigSchema = z
  .object({
    BLOB_STORE: z.enum(['local', 's3']).default('local'),
    BLOB_DIR: z.string().min(1).default('.data/blobs'),
    S3_BUCKET: z.preprocess(emptyToUndefined, z.string().min(1).optional()),
    S3_REGION: z.string().min(1).default('us-east-1'),
    /** For S3-compatible servers such as MinIO. */
    S3_ENDPOINT: z.preprocess(emptyToUndefined, z.url().optional()),
    S3_FORCE_PATH_STYLE: z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .default('false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
    S3_PREFIX: z.preprocess(emptyToUndefined, z.string().optional()),
  })
  .refine((c) => c.BLOB_STORE !== 's3' || !!c.S3_BUCKET, {
    message: 'S3_BUCKET is required when BLOB_STORE=s3',
    path: ['S3_BUCKET'],
  });

export type BlobStoreConfig = z.infer<typeof blobStoreConfigSchema>;

/** Parses blob-store settings from an environment; throws a ZodError listing every problem. */
export function parseBlobStoreConfig(env: Record<string, string | undefined> = process.env): BlobStoreConfig {
  return blobStoreConfigSchema.parse(env);
}
