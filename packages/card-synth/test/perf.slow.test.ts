// Performance sanity: logs generation time per pair at 2 and 12 MP through the CLI (plain Node + tsx; code
// under jest's VM modules runs about 3x slower, so timing it in-process would mislead). No timing assertions.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli.ts');

describe('generation speed', () => {
  it('logs ms per pair at 2 MP and 12 MP', () => {
    const lines: string[] = [];
    for (const mp of [2, 12]) {
      const out = mkdtempSync(join(tmpdir(), 'card-synth-perf-'));
      try {
        const env = { ...process.env, NODE_OPTIONS: '' };
        const res = spawnSync(process.execPath, ['--import', 'tsx', cli, '--from', '1000500', '--count', '3', '--megapixels', String(mp), '--out', out], {
          encoding: 'utf8',
          env,
        });
        expect(res.status).toBe(0);
        expect(readdirSync(out)).toHaveLength(3);
        const summary = res.stdout.trim().split('\n').pop() ?? '';
        lines.push(`${mp} MP: ${summary}`);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    }
    console.log(`card-synth speed: ${lines.join('; ')}`);
  }, 300_000);
});
