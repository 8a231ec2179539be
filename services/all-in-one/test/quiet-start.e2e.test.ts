// `npm start`'s process on a terminal (a pseudo-terminal from util-linux `script`): the console shows the
// progress lines and the banner, not JSON; every log record goes to logs/cardlens.log beside the PGlite folder.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const fixtures = fileURLToPath(new URL('../../valuation/test/fixtures', import.meta.url));

describe('npm start on a terminal', () => {
  it('prints a short human console and writes the JSON logs to a file', async () => {
    const work = mkdtempSync(path.join(os.tmpdir(), 'quiet-start-'));
    const port = 32000 + (process.pid % 5000);
    const command = `exec ${path.join(repoRoot, 'node_modules/.bin/tsx')} --import @cardlens/telemetry/register services/all-in-one/src/main.ts`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: repoRoot,
      detached: true,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TERM: 'xterm',
        GATEWAY_PORT: String(port),
        PGLITE_DIR: path.join(work, 'pglite'),
        BLOB_DIR: path.join(work, 'blobs'),
        CATALOG_DIR: path.join(fixtures, 'catalog'),
        PRICES_DIR: path.join(fixtures, 'prices'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let screen = '';
    child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    try {
      const until = Date.now() + 120_000;
      while (!screen.includes('Base URL:') && Date.now() < until && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 250));
      expect(screen).toContain('Base URL:');
      expect(screen).toContain('First start: loading the card catalog');
      expect(screen).toContain(`logs in ${path.relative(repoRoot, path.join(work, 'logs', 'cardlens.log'))}`);
      // No JSON log record on the console.
      expect(screen.split(/\r?\n/).filter((line) => line.startsWith('{'))).toEqual([]);
      const logFile = path.join(work, 'logs', 'cardlens.log');
      expect(existsSync(logFile)).toBe(true);
      const records = readFileSync(logFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { msg: string });
      expect(records.map((r) => r.msg)).toEqual(expect.arrayContaining(['gateway listening', 'catalog loaded on first start']));
    } finally {
      try {
        process.kill(-child.pid!, 'SIGINT');
      } catch {
        // already gone
      }
      await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    }
  }, 180_000);
});
