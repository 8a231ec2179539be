import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { PhotoSpool } from '../src/photo-spool';

const logger = pino({ level: 'silent' });
const roots: string[] = [];
const newRoot = () => {
  const root = mkdtempSync(path.join(tmpdir(), 'cardlens-spool-test-'));
  roots.push(root);
  return root;
};
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/** Every file under `root`, and whether any holds `needle`. */
function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}
const containsBytes = (root: string, needle: Buffer) => filesUnder(root).some((file) => readFileSync(file).includes(needle));

describe('the temporary photo area', () => {
  it('holds the photos, owner-only, only while the analysis runs, then deletes them (success)', async () => {
    const root = newRoot();
    const spool = new PhotoSpool(path.join(root, 'area'), 60_000, logger);
    await spool.open(60_000);
    const front = Buffer.from('front-photo-bytes-success');
    const back = Buffer.from('back-photo-bytes-success');
    const seen = await spool.withPhotos('grade-7', { front, back }, async (photos) => {
      const files = filesUnder(spool.root);
      expect(files).toHaveLength(2);
      for (const file of files) expect(statSync(file).mode & 0o077).toBe(0);
      expect(statSync(spool.root).mode & 0o077).toBe(0);
      return Buffer.concat([photos.front, photos.back]).toString();
    });
    expect(seen).toBe('front-photo-bytes-successback-photo-bytes-success');
    expect(readdirSync(spool.root)).toEqual([]);
    expect(containsBytes(root, front)).toBe(false);
    spool.close();
  });

  it('deletes them when the analysis fails', async () => {
    const root = newRoot();
    const spool = new PhotoSpool(root, 60_000, logger);
    await spool.open(60_000);
    const bytes = Buffer.from('photo-bytes-failure');
    await expect(spool.withPhotos('grade-8', { front: bytes, back: bytes }, async () => Promise.reject(new Error('engine failed')))).rejects.toThrow('engine failed');
    expect(readdirSync(root)).toEqual([]);
    spool.close();
  });

  it('after a killed process, the next start sweeps what it left once it is older than the maximum age', async () => {
    const root = newRoot();
    const marker = `killed-${process.pid}`;
    const child = fork(fileURLToPath(new URL('./spool-child.ts', import.meta.url)), [root, marker], { execArgv: ['--import', 'tsx'], stdio: 'ignore' });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`child exited early (${code})`)));
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const needle = Buffer.from(`${marker}-photo-bytes`);
    // The crash left the photos behind: no finally block ran.
    expect(containsBytes(root, needle)).toBe(true);

    // A restart within the maximum age leaves them (they could belong to a grade still running elsewhere) ...
    const restarted = new PhotoSpool(root, 300_000, logger);
    await restarted.open(60_000);
    expect(containsBytes(root, needle)).toBe(true);
    restarted.close();
    // ... and once they are older than it, the sweep removes every byte.
    const old = new Date(Date.now() - 301_000);
    for (const entry of readdirSync(root)) utimesSync(path.join(root, entry), old, old);
    const later = new PhotoSpool(root, 300_000, logger);
    await later.open(60_000);
    expect(readdirSync(root)).toEqual([]);
    expect(containsBytes(root, needle)).toBe(false);
    later.close();
  }, 30_000);
});
