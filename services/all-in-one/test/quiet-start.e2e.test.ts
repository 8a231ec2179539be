// `npm start`'s process on a terminal (a pseudo-terminal from util-linux `script`): the console shows the
// progress lines and the banner, not JSON; every log record goes to logs/cardlens.log beside the PGlite folder.
// Ctrl+C stops it cleanly, and a restart on the same data carries on where it stopped.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const fixtures = fileURLToPath(new URL('../../valuation/test/fixtures', import.meta.url));

/** `npm start`'s process on a pseudo-terminal, in its own process group (Ctrl+C signals the whole group). */
function startOnTerminal(work: string, port: number) {
  // npm start's command once bootstrap has nothing to do.
  const command = `exec ${process.execPath} --import tsx --import @cardlens/telemetry/register services/all-in-one/src/main.ts`;
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
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (screen += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    screen: () => screen,
    async ready(): Promise<void> {
      const until = Date.now() + 120_000;
      while (!screen.includes('Base URL:') && Date.now() < until && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 250));
    },
    /**
     * Ctrl+C typed on the terminal: the pseudo-terminal turns it into SIGINT for the service's process group, as a
     * real one does. The exit code, or null when it had to be killed after 30 s.
     */
    async interrupt(): Promise<number | null> {
      if (child.exitCode !== null) return child.exitCode;
      child.stdin.write('\x03');
      const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

const register = async (port: number, name: string): Promise<number> => {
  const response = await fetch(`http://127.0.0.1:${port}/v1/agents`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name }) });
  expect(response.status).toBe(201);
  return ((await response.json()) as { agentId: number }).agentId;
};

describe('npm start on a terminal', () => {
  it('prints a short human console, writes the JSON logs to a file, and stops cleanly on Ctrl+C (no id jump on restart)', async () => {
    const work = mkdtempSync(path.join(os.tmpdir(), 'quiet-start-'));
    const port = 32000 + (process.pid % 5000);
    const first = startOnTerminal(work, port);
    let firstAgent: number;
    try {
      await first.ready();
      const screen = first.screen();
      expect(screen).toContain('Base URL:');
      expect(screen).toContain('First start: loading the card catalog');
      expect(screen).toContain(`logs in ${path.relative(repoRoot, path.join(work, 'logs', 'cardlens.log'))}`);
      // No JSON log record on the console.
      expect(screen.split(/\r?\n/).filter((line) => line.startsWith('{'))).toEqual([]);
      const logFile = path.join(work, 'logs', 'cardlens.log');
      expect(existsSync(logFile)).toBe(true);
      const records = readFileSync(logFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { msg: string });
      expect(records.map((r) => r.msg)).toEqual(expect.arrayContaining(['gateway listening', 'catalog loaded on first start']));
      firstAgent = await register(port, 'before restart');
    } finally {
      // Ctrl+C: every service stops and PGlite is closed (a checkpoint): exit code 0, and the console says so.
      expect(await first.interrupt()).toBe(0);
    }
    expect(first.screen()).toContain('CardLens stopped.');
    const records = readFileSync(path.join(work, 'logs', 'cardlens.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { msg: string });
    expect(records.map((r) => r.msg)).toEqual(expect.arrayContaining(['shutting down', 'stopped cleanly']));

    // The same data folder again: no first-start load, and the next id follows on (a database that was not closed
    // cleanly recovers with its sequences advanced by their WAL prefetch: ids jump by 32).
    const second = startOnTerminal(work, port);
    try {
      await second.ready();
      expect(second.screen()).toContain('Base URL:');
      expect(second.screen()).not.toContain('First start');
      expect(await register(port, 'after restart')).toBe(firstAgent + 1);
    } finally {
      expect(await second.interrupt()).toBe(0);
    }
  }, 240_000);
});
