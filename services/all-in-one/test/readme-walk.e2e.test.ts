// The README's curl walk, run as written: the shell blocks from "A curl session" to the sandbox clock, in order,
// against `npm start`'s process (the test catalog and prices for speed; BASE pointed at its port). Each command
// must succeed (`set -euo pipefail`: a missing key, checkout link or header fails the walk), and the answers the
// README shows must come back.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const fixtures = fileURLToPath(new URL('../../valuation/test/fixtures', import.meta.url));

/** The README's shell blocks between two headings, in order. */
function shellBlocks(readme: string, from: string, to: string): string[] {
  const section = readme.slice(readme.indexOf(from), readme.indexOf(to));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

describe('the README walk', () => {
  it('runs as written, from registration to the sandbox clock', async () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const blocks = shellBlocks(readme, '## A curl session', '### MCP: the same API as tools for agents');
    expect(blocks.length).toBe(4);
    const work = mkdtempSync(path.join(os.tmpdir(), 'readme-walk-'));
    const port = 33000 + (process.pid % 5000);
    const base = `http://127.0.0.1:${port}`;
    const script = blocks.join('\n').replace(/^BASE=http:\/\/127\.0\.0\.1:8080$/m, `BASE=${base}`);
    expect(script).toContain(`BASE=${base}`);
    writeFileSync(path.join(work, 'walk.sh'), `set -euo pipefail\ncd ${JSON.stringify(repoRoot)}\n${script}`);

    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GATEWAY_PORT: String(port),
      PUBLIC_BASE_URL: base,
      PGLITE_DIR: path.join(work, 'pglite'),
      BLOB_DIR: path.join(work, 'blobs'),
      CATALOG_DIR: path.join(fixtures, 'catalog'),
      PRICES_DIR: path.join(fixtures, 'prices'),
    };
    const service = spawn(process.execPath, ['--import', 'tsx', '--import', '@cardlens/telemetry/register', 'services/all-in-one/src/main.ts'], {
      cwd: repoRoot,
      env,
      detached: true,
      stdio: 'ignore',
    });
    try {
      const until = Date.now() + 120_000;
      for (;;) {
        const up = await fetch(`${base}/v1/pricing`).then((r) => r.ok, () => false);
        if (up) break;
        if (Date.now() > until) throw new Error('the service did not start');
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      const { stdout } = await promisify(execFile)('bash', [path.join(work, 'walk.sh')], { cwd: repoRoot, env, maxBuffer: 16 * 1024 * 1024, timeout: 240_000 });
      for (const answer of [
        '"tier":"registered","credits":3',
        '"status":"queued","modules":["full"],"creditsCharged":2,"creditsRemaining":1',
        '<h1>',
        '\n204\n404\n',
        '"code":"insufficient_credits"',
        '"code":"invalid_image_url"',
        'WWW-Authenticate: Bearer realm="CardLens", resource_metadata="',
        '/sandbox/checkout/cs_sandbox_',
        'X-Credits-Remaining: 26',
        '"status":"trialing"',
        '"billingSource":"trial","gradesCharged":0',
        '"status":"past_due"',
        '"status":"active","unlimitedGrading":false',
        '"gradesRemaining":5000',
        '"pendingPlan":"grading_10000"',
        '"cancelAtPeriodEnd":true',
        '/sandbox/portal/bps_sandbox_',
      ]) {
        if (!stdout.includes(answer)) throw new Error(`the walk's output lacks ${answer}:\n${stdout.slice(-3000)}`);
      }
    } finally {
      try {
        process.kill(-service.pid!, 'SIGINT');
      } catch {
        // already gone
      }
      await new Promise((resolve) => (service.exitCode !== null ? resolve(undefined) : service.once('exit', resolve)));
    }
  }, 360_000);
});
