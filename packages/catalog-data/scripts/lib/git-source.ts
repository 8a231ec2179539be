// Reading a pinned commit of a git checkout, whatever its HEAD: every file comes from `<commit>:<path>`.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root (packages/catalog-data). */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** `--source <dir>` from argv; exits with a usage line when missing. */
export function sourceArg(usage: string): string {
  const argv = process.argv.slice(2);
  const i = argv.indexOf('--source');
  const value = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--source='))?.slice('--source='.length);
  if (!value) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  return value;
}

export class GitSource {
  constructor(
    readonly dir: string,
    readonly commit: string,
  ) {
    try {
      execFileSync('git', ['-C', dir, 'cat-file', '-e', `${commit}^{commit}`], { stdio: 'pipe' });
    } catch {
      throw new Error(`commit ${commit} is not in the git checkout at ${dir} (fetch it first)`);
    }
  }

  private git(args: string[]): Buffer {
    return execFileSync('git', ['-C', this.dir, ...args], { maxBuffer: 2 ** 31 - 1, stdio: ['pipe', 'pipe', 'pipe'] });
  }

  /** `git show <commit>:<path>` as bytes. */
  show(file: string): Buffer {
    return this.git(['show', `${this.commit}:${file}`]);
  }

  /** Paths of the blobs under `prefix` at the commit (recursive). */
  listFiles(prefix: string): string[] {
    const out = this.git(['ls-tree', '-r', '-z', '--name-only', this.commit, '--', prefix]).toString('utf8');
    return out.split('\0').filter(Boolean);
  }

  /** Many `<commit>:<path>` blobs in one `git cat-file --batch` call (same content as `git show`). */
  showMany(files: string[]): Map<string, Buffer> {
    const result = new Map<string, Buffer>();
    if (files.length === 0) return result;
    for (const f of files) if (f.includes('\n')) throw new Error(`path with a newline: ${JSON.stringify(f)}`);
    const input = files.map((f) => `${this.commit}:${f}\n`).join('');
    const out = execFileSync('git', ['-C', this.dir, 'cat-file', '--batch'], { input, maxBuffer: 2 ** 31 - 1 });
    let pos = 0;
    for (const f of files) {
      const nl = out.indexOf(0x0a, pos);
      const header = out.subarray(pos, nl).toString('utf8');
      const m = /^([0-9a-f]+) blob (\d+)$/.exec(header);
      if (!m) throw new Error(`git cat-file: ${header} (for ${f})`);
      const size = Number(m[2]);
      result.set(f, out.subarray(nl + 1, nl + 1 + size));
      pos = nl + 1 + size + 1;
    }
    return result;
  }

  /** Committer date (YYYY-MM-DD) of the last commit touching `file` at the pinned commit. */
  lastChangeDate(file: string): string {
    return this.git(['log', '-1', '--format=%cs', this.commit, '--', file]).toString('utf8').trim();
  }
}
