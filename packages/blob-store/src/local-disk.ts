import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { assertValidKey, sha256Hex, type BlobStore, type StoredBlob } from './blob-store';

/** Suffix of the sidecar file that holds a blob's content type (and hash) next to the blob itself. */
export const META_SUFFIX = '.meta.json';

type Meta = { contentType: string; sha256: string; sizeBytes: number };

/**
 * Blob store on the local file system, for development and single-node deployments.
 *
 * - `<rootDir>/<key>` holds the bytes; `<rootDir>/<key>.meta.json` holds `{ contentType, sha256, sizeBytes }`.
 *   Keys ending in `.meta.json` are therefore refused by this adapter.
 * - Each file is written to a temp file in the same directory and renamed into place, so a reader never
 *   sees a partly written blob. Data is renamed before the sidecar; with concurrent puts of the same key
 *   each file is complete, but the bytes and the sidecar may come from different writers (last rename wins).
 * - uri is `local:<key>` (not an absolute path, so stored uris survive moving the data directory).
 * - Paths are resolved and checked to stay under rootDir (lexically; symlinks inside rootDir are not inspected).
 */
export class LocalDiskBlobStore implements BlobStore {
  readonly kind = 'local' as const;
  readonly rootDir: string;

  constructor(rootDir: string) {
    this.rootDir = path.resolve(rootDir);
  }

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<StoredBlob> {
    const file = this.pathFor(key);
    const meta: Meta = { contentType, sha256: sha256Hex(bytes), sizeBytes: bytes.byteLength };
    // A delete elsewhere in the tree may remove the folder as it empties (see delete): make it again and retry.
    for (let attempt = 1; ; attempt++) {
      try {
        await mkdir(path.dirname(file), { recursive: true });
        await atomicWrite(file, bytes);
        await atomicWrite(file + META_SUFFIX, JSON.stringify(meta));
        return { uri: `local:${key}`, ...meta };
      } catch (error) {
        if (!isMissing(error) || attempt >= 3) throw error;
      }
    }
  }

  async get(key: string): Promise<{ bytes: Uint8Array; contentType: string } | null> {
    const file = this.pathFor(key);
    let data: Buffer;
    try {
      data = await readFile(file);
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
    let contentType = 'application/octet-stream';
    try {
      contentType = (JSON.parse(await readFile(file + META_SUFFIX, 'utf8')) as Meta).contentType ?? contentType;
    } catch (e) {
      if (!isMissing(e) && !(e instanceof SyntaxError)) throw e;
    }
    return { bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), contentType };
  }

  async delete(key: string): Promise<void> {
    const file = this.pathFor(key);
    await rm(file, { force: true });
    await rm(file + META_SUFFIX, { force: true });
    // Folders the deletion emptied go too (a scan's `scans/<id>/runs/<run>/`), up to the root: retention leaves
    // no trail of empty directories. rmdir refuses a folder that is not empty, which ends the walk.
    for (let dir = path.dirname(file); dir.startsWith(this.rootDir + path.sep); dir = path.dirname(dir)) {
      try {
        await rmdir(dir);
      } catch {
        break;
      }
    }
  }

  private pathFor(key: string): string {
    assertValidKey(key);
    if (key.endsWith(META_SUFFIX)) throw new Error(`Invalid blob key ${JSON.stringify(key)}: '${META_SUFFIX}' is reserved`);
    const file = path.resolve(this.rootDir, key);
    if (!file.startsWith(this.rootDir + path.sep)) throw new Error(`Invalid blob key ${JSON.stringify(key)}: escapes the blob root`);
    return file;
  }
}

async function atomicWrite(file: string, data: Uint8Array | string): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, data);
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

function isMissing(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: string }).code === 'ENOENT';
}
