import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { S3BlobStore } from '../src/index';
import { FakeS3Server } from './fake-s3-server';

describe('S3BlobStore against FakeS3Server', () => {
  const fake = new FakeS3Server();
  let store: S3BlobStore;

  beforeAll(async () => {
    const endpoint = await fake.start();
    store = new S3BlobStore({
      bucket: 'scans-bucket',
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      prefix: 'test/',
      credentials: { accessKeyId: 'TESTKEYID', secretAccessKey: 'test-secret-not-real' },
    });
  });

  afterAll(async () => {
    store.destroy();
    await fake.stop();
  });

  it('round-trips bytes with content type, sha256 and size', async () => {
    const bytes = new Uint8Array([0xff, 0xd8, 0xff, 0x00, 1, 2, 3]);
    const stored = await store.put('scans/123/front.jpg', bytes, 'image/jpeg');
    const sha = createHash('sha256').update(bytes).digest('hex');
    expect(stored).toEqual({ uri: 's3://scans-bucket/test/scans/123/front.jpg', sha256: sha, sizeBytes: 7, contentType: 'image/jpeg' });

    const obj = fake.objects.get('/scans-bucket/test/scans/123/front.jpg');
    expect(obj?.body.equals(Buffer.from(bytes))).toBe(true);
    expect(obj?.contentType).toBe('image/jpeg');
    expect(obj?.metadata.sha256).toBe(sha);

    const got = await store.get('scans/123/front.jpg');
    expect(got?.contentType).toBe('image/jpeg');
    expect(Array.from(got!.bytes)).toEqual(Array.from(bytes));
  });

  it('signs requests with AWS SigV4 and sends the checksum', async () => {
    await store.put('scans/1/result.json', new TextEncoder().encode('{"ok":true}'), 'application/json');
    const put = fake.requests.filter((r) => r.method === 'PUT').at(-1)!;
    expect(put.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=TESTKEYID\/\d{8}\/us-east-1\/s3\/aws4_request, SignedHeaders=.+, Signature=[0-9a-f]{64}$/);
    expect(put.headers['x-amz-checksum-sha256']).toBe(createHash('sha256').update('{"ok":true}').digest('base64'));
    for (const r of fake.requests) expect(r.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 /);
  });

  it('returns null for a missing key (NoSuchKey)', async () => {
    expect(await store.get('scans/missing/front.jpg')).toBeNull();
  });

  it('deletes, idempotently', async () => {
    await store.put('scans/9/back.png', new Uint8Array([9]), 'image/png');
    await store.delete('scans/9/back.png');
    expect(await store.get('scans/9/back.png')).toBeNull();
    await expect(store.delete('scans/9/back.png')).resolves.toBeUndefined();
  });

  it('refuses bad keys before any request', async () => {
    const before = fake.requests.length;
    await expect(store.put('../x', new Uint8Array(), 'a/b')).rejects.toThrow(/Invalid blob key/);
    await expect(store.get('/abs')).rejects.toThrow(/Invalid blob key/);
    expect(fake.requests.length).toBe(before);
  });
});
