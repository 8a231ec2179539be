import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LocalDiskBlobStore } from '../src/index';

describe('LocalDiskBlobStore', () => {
  let parent: string;
  let root: string;
  let store: LocalDiskBlobStore;

  beforeEach(async () => {
    parent = await mkdtemp(path.join(os.tmpdir(), 'blob-store-'));
    root = path.join(parent, 'root');
    store = new LocalDiskBlobStore(root);
  });
  afterEach(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it('round-trips bytes with sha256, size and content type', async () => {
    const bytes = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 1, 2]);
    const stored = await store.put('scans/123/front.jpg', bytes, 'image/jpeg');
    expect(stored).toEqual({
      uri: 'local:scans/123/front.jpg',
      sha256: createHash('sha256').update(bytes).digest('hex'),
      sizeBytes: 7,
      contentType: 'image/jpeg',
    });
    const got = await store.get('scans/123/front.jpg');
    expect(got?.contentType).toBe('image/jpeg');
    expect(Array.from(got!.bytes)).toEqual(Array.from(bytes));
    expect(await readFile(path.join(root, 'scans/123/front.jpg'))).toEqual(Buffer.from(bytes));
  });

  it('overwrites an existing key and leaves no temp files', async () => {
    await store.put('a/b.bin', new Uint8Array([1, 2, 3, 4]), 'application/octet-stream');
    const second = await store.put('a/b.bin', new Uint8Array([9]), 'image/png');
    expect(second.sizeBytes).toBe(1);
    const got = await store.get('a/b.bin');
    expect(Array.from(got!.bytes)).toEqual([9]);
    expect(got!.contentType).toBe('image/png');
    expect((await readdir(path.join(root, 'a'))).sort()).toEqual(['b.bin', 'b.bin.meta.json']);
  });

  it('returns null for a missing key', async () => {
    expect(await store.get('nothing/here.jpg')).toBeNull();
  });

  it('removes the folders a deletion empties, up to the root and no further', async () => {
    await store.put('scans/7/runs/r1/overlay.png', new Uint8Array([1]), 'image/png');
    await store.put('scans/7/front.jpg', new Uint8Array([2]), 'image/jpeg');
    await store.delete('scans/7/runs/r1/overlay.png');
    expect(await readdir(path.join(root, 'scans', '7'))).toEqual(expect.arrayContaining(['front.jpg']));
    expect((await readdir(path.join(root, 'scans', '7'))).includes('runs')).toBe(false);
    await store.delete('scans/7/front.jpg');
    expect((await readdir(root)).includes('scans')).toBe(false);
    // The root itself stays, and a put into a removed folder makes it again.
    await store.put('scans/7/back.jpg', new Uint8Array([3]), 'image/jpeg');
    expect(Array.from((await store.get('scans/7/back.jpg'))!.bytes)).toEqual([3]);
  });

  it('deletes idempotently', async () => {
    await store.put('x/y.txt', new TextEncoder().encode('hi'), 'text/plain');
    await store.delete('x/y.txt');
    expect(await store.get('x/y.txt')).toBeNull();
    await expect(store.delete('x/y.txt')).resolves.toBeUndefined();
    await expect(store.delete('never/existed')).resolves.toBeUndefined();
  });

  it.each([
    ['../x'],
    ['/abs'],
    ['a//b'],
    [''],
    ['a'.repeat(513)],
    ['a/../../b'],
    ['a/./b'],
    ['a/'],
    ['..'],
    ['a\\..\\b'],
    ['a/b c'],
    ['a/%2e%2e/b'],
    ['x\u0000y'],
    ['scans/1/front.jpg.meta.json'],
  ])('refuses bad key %j', async (key) => {
    await expect(store.put(key, new Uint8Array([1]), 'text/plain')).rejects.toThrow(/Invalid blob key/);
    await expect(store.get(key)).rejects.toThrow(/Invalid blob key/);
    await expect(store.delete(key)).rejects.toThrow(/Invalid blob key/);
  });

  it('accepts a 512-character key', async () => {
    const key = `${'a'.repeat(200)}/${'b'.repeat(200)}/${'c'.repeat(110)}`;
    expect(key.length).toBe(512);
    await expect(store.put(key, new Uint8Array([1]), 'text/plain')).resolves.toMatchObject({ sizeBytes: 1 });
  });

  it('never writes outside the root, even with tricky input', async () => {
    const tricky = ['../root-sibling', '..', '../../etc/passwd', 'a/../../x', '/tmp/x', '.../x', 'a/...', '...'];
    for (const key of tricky) {
      await store.put(key, new Uint8Array([1]), 'text/plain').catch(() => undefined);
    }
    // Only names made of dots but not '.'/'..' are legal, and they stay inside the root.
    expect(await readdir(parent)).toEqual(['root']);
    expect((await stat(path.join(root, '.../x'))).isFile()).toBe(true);
    expect((await stat(path.join(root, 'a/...'))).isFile()).toBe(true);
  });

  it('concurrent puts of the same key leave one complete file', async () => {
    const size = 512 * 1024;
    const payloads = Array.from({ length: 12 }, (_, i) => new Uint8Array(size).fill(i + 1));
    await Promise.all(payloads.map((p, i) => store.put('scans/race/front.jpg', p, `image/x-${i}`)));
    const got = await store.get('scans/race/front.jpg');
    expect(got!.bytes.byteLength).toBe(size);
    const first = got!.bytes[0]!;
    expect(first).toBeGreaterThanOrEqual(1);
    expect(got!.bytes.every((b) => b === first)).toBe(true);
    expect(await readdir(path.join(root, 'scans/race'))).toEqual(expect.arrayContaining(['front.jpg', 'front.jpg.meta.json']));
    expect((await readdir(path.join(root, 'scans/race'))).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
