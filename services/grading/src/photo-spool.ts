import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@cardlens/telemetry';

export interface PhotoPair {
  front: Uint8Array;
  back: Uint8Array;
}

/**
 * The temporary area of grading-only photos (the spec's "temporary image processing"). A grade's photos are
 * written to a private directory of their own, read from there for the analysis, and the directory is removed as
 * soon as the analysis ends, whatever its outcome. A sweeper removes anything older than `maxAgeMs` (left behind
 * by a process that died mid-grade), at start and then periodically. Nothing here is ever logged or copied to the
 * blob store; the grade keeps only the SHA-256 of each photo.
 */
export class PhotoSpool {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly root: string,
    private readonly maxAgeMs: number,
    private readonly logger: Logger,
  ) {}

  /** Creates the area (owner-only) and sweeps what a previous process left. */
  async open(sweepEveryMs: number): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o700 });
    await this.sweep();
    this.timer = setInterval(() => void this.sweep().catch((err: unknown) => this.logger.warn({ err }, 'photo sweep failed')), sweepEveryMs);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
  }

  /** Spools the pair, runs `use` on the photos read back from the area, and deletes them when it ends. */
  async withPhotos<T>(label: string, photos: PhotoPair, use: (pair: PhotoPair) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(path.join(this.root, `${label}-`));
    try {
      const front = path.join(dir, 'front');
      const back = path.join(dir, 'back');
      await Promise.all([writeFile(front, photos.front, { mode: 0o600 }), writeFile(back, photos.back, { mode: 0o600 })]);
      const [frontBytes, backBytes] = await Promise.all([readFile(front), readFile(back)]);
      return await use({ front: frontBytes, back: backBytes });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** Removes every entry older than the maximum age; returns how many went. */
  async sweep(): Promise<number> {
    const cutoff = Date.now() - this.maxAgeMs;
    let removed = 0;
    for (const name of await readdir(this.root).catch(() => [] as string[])) {
      const entry = path.join(this.root, name);
      const info = await stat(entry).catch(() => undefined);
      if (!info || info.mtimeMs > cutoff) continue;
      await rm(entry, { recursive: true, force: true });
      removed++;
    }
    if (removed > 0) this.logger.info({ removed }, 'stale grading photos removed');
    return removed;
  }
}
