/**
 * npm run real:fetch -- --mirrors DIR
 *
 * Fills the git-ignored photos/ of the real-photo set from local git snapshots of the source repositories: for
 * every manifest image under photos/, `git --git-dir <mirror> show <commit>:<path>`, where the mirror of
 * `owner/name` is the first of DIR/owner+name(.git), DIR/owner/name(.git) or DIR/name(.git) that exists (a bare
 * snapshot or a clone with history; get one with `git clone --mirror https://github.com/owner/name`). Images
 * already present are kept. Nothing is downloaded here: the sources are what you put under DIR.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadRealSet, REAL_SET_DIR, type RealImage } from './real-set';

function mirrorOf(root: string, repo: string): string | undefined {
  const [owner, name] = repo.split('/') as [string, string];
  const candidates = [`${owner}+${name}`, path.join(owner, name), name].flatMap((p) => [path.join(root, p), path.join(root, `${p}.git`)]);
  for (const c of candidates) {
    if (!existsSync(c)) continue;
    // A snapshot directory may hold the git dir one level down.
    if (existsSync(path.join(c, 'HEAD'))) return c;
    if (existsSync(path.join(c, '.git'))) return path.join(c, '.git');
    const inner = readdirSync(c).map((e) => path.join(c, e)).find((e) => existsSync(path.join(e, 'HEAD')));
    if (inner) return inner;
  }
  return undefined;
}

function main(): void {
  const i = process.argv.indexOf('--mirrors');
  const root = i >= 0 ? process.argv[i + 1] : process.env.REAL_MIRRORS;
  if (!root) {
    console.error('usage: npm run real:fetch -- --mirrors DIR   (DIR holds git snapshots of the source repositories)');
    process.exit(2);
  }
  const images: RealImage[] = loadRealSet().flatMap((c) => [c.front, ...(c.back ? [c.back] : [])]).filter((im) => im.file.startsWith('photos/'));
  let present = 0;
  let written = 0;
  const unavailable = new Map<string, number>();
  for (const im of images) {
    const target = path.join(REAL_SET_DIR, im.file);
    if (existsSync(target)) {
      present++;
      continue;
    }
    const gitDir = mirrorOf(root, im.repo);
    if (!gitDir) {
      unavailable.set(im.repo, (unavailable.get(im.repo) ?? 0) + 1);
      continue;
    }
    try {
      const bytes = execFileSync('git', ['--git-dir', gitDir, 'show', `${im.commit}:${im.path}`], { maxBuffer: 64 * 1024 * 1024 });
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, bytes);
      written++;
    } catch {
      unavailable.set(im.repo, (unavailable.get(im.repo) ?? 0) + 1);
    }
  }
  console.log(`${images.length} photos in the manifest: ${present} already here, ${written} written`);
  for (const [repo, n] of unavailable) console.log(`  ${n} not available from ${repo} (no snapshot under ${root}, or the commit is missing)`);
}

main();
