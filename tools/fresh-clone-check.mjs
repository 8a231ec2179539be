// Proves the repository runs alone: a clone of HEAD in a folder with nothing beside it (no sibling data
// folder) runs the README's `npm start` and completes a full scan of a photographed Pokemon card, with a
// value estimate built on the market prices the repository ships. It also times the first start (catalog and
// price snapshot loaded into a fresh PGlite) to the base URL.
//
// The clone reuses this checkout's installed node_modules (hard links, same filesystem) so the check costs the
// start, not a second three-minute install; everything else (generated clients, .data, the catalog load) is
// the clone's own.
//
//   node tools/fresh-clone-check.mjs [--keep]
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, mkdirSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { keep: { type: 'boolean', default: false } } });
const parent = path.join(ROOT, '.ci', '.work', 'fresh-clone');
const clone = path.join(parent, 'cardlens');
const port = 31000 + (process.pid % 10000);
const base = `http://127.0.0.1:${port}`;
const started = Date.now();
const log = (message) => process.stdout.write(`[fresh-clone +${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`);
const fail = (message, detail) => {
  process.stdout.write(`[fresh-clone] FAILED: ${message}${detail === undefined ? '' : `\n${typeof detail === 'string' ? detail : JSON.stringify(detail, null, 2).slice(0, 3000)}`}\n`);
  process.exitCode = 1;
};

rmSync(parent, { recursive: true, force: true });
mkdirSync(parent, { recursive: true });
log(`cloning HEAD into ${clone} (its parent holds nothing else)`);
execFileSync('git', ['clone', '--quiet', ROOT, clone], { stdio: 'inherit' });
const siblings = readdirSync(parent);
if (siblings.length !== 1) throw new Error(`the clone has siblings: ${siblings.join(', ')}`);

// node_modules of the root and of each workspace, hard-linked; the lockfile is dated before the install stamp
// so bootstrap does not reinstall. Generated Prisma clients are not copied: bootstrap makes them, as for a user.
const workspaceModules = ['node_modules', ...['packages', 'services'].flatMap((dir) =>
  readdirSync(path.join(ROOT, dir)).map((name) => path.join(dir, name, 'node_modules')))].filter((dir) => existsSync(path.join(ROOT, dir)));
for (const dir of workspaceModules) execFileSync('cp', ['-al', path.join(ROOT, dir), path.join(clone, dir)]);
rmSync(path.join(clone, 'node_modules', '.cache'), { recursive: true, force: true });
utimesSync(path.join(clone, 'package-lock.json'), new Date('2000-01-01'), new Date('2000-01-01'));

// Registration limits raised for the few agents below; every other setting is npm start's default.
const env = { PATH: process.env.PATH, HOME: process.env.HOME, GATEWAY_PORT: String(port), PUBLIC_BASE_URL: base, RATE_LIMIT_NEW_AGENTS_PER_DAY: '20', RATE_LIMIT_REGISTRATION_ATTEMPTS_PER_HOUR: '20' };
log(`npm start (GATEWAY_PORT=${port}, registration limits 20; every other setting at its default)`);
const service = spawn('npm', ['start'], { cwd: clone, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
let output = '';
service.stdout.on('data', (chunk) => { output = (output + chunk).slice(-20_000); });
service.stderr.on('data', (chunk) => { output = (output + chunk).slice(-20_000); });
let exited = false;
service.on('exit', () => { exited = true; });

async function api(method, route, { key, json, form, headers = {} } = {}) {
  const init = { method, headers: { ...headers } };
  if (key) init.headers.authorization = `Bearer ${key}`;
  if (json) { init.headers['content-type'] = 'application/json'; init.body = JSON.stringify(json); }
  if (form) init.body = form;
  const response = await fetch(`${base}${route}`, init);
  const text = await response.text();
  let body = text;
  try { body = JSON.parse(text); } catch { /* not JSON */ }
  return { status: response.status, body, headers: response.headers };
}

async function waitFor(what, probe, timeoutMs) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (exited) throw new Error(`the service exited while waiting for ${what}`);
    try {
      const result = await probe();
      if (result) return result;
    } catch (error) {
      if (!(error instanceof TypeError)) throw error; // fetch's connection refused is a TypeError
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

try {
  await waitFor('the base URL', async () => (await api('GET', '/v1/pricing')).status === 200, 300_000);
  const firstStartSeconds = (Date.now() - started) / 1000;
  log(`base URL answers: first start (clone excluded: see the log's first line) ${firstStartSeconds.toFixed(1)} s`);

  // Synthetic photos of catalog Pokemon cards (the generator's evaluation seeds); each is scanned in full by a
  // newly registered agent until one is identified as a card the shipped snapshot prices.
  const photos = path.join(parent, 'photos');
  execFileSync(path.join(clone, 'node_modules', '.bin', 'tsx'), ['packages/card-synth/src/cli.ts', '--game', 'pokemon', '--from', '1000000', '--count', '4', '--out', photos], { cwd: clone, stdio: 'ignore' });
  let priced = null;
  for (const seed of readdirSync(photos).sort()) {
    const truth = JSON.parse(readFileSync(path.join(photos, seed, 'label.json'), 'utf8')).card;
    const form = new FormData();
    form.append('modules', 'full');
    for (const side of ['front', 'back']) form.append(side, new Blob([readFileSync(path.join(photos, seed, `${side}.jpg`))], { type: 'image/jpeg' }), `${side}.jpg`);
    const registered = await api('POST', '/v1/agents', { json: { name: `fresh-clone-check-${seed}`, contactEmail: 'owner@example.com' } });
    if (registered.status !== 201) throw new Error(`POST /v1/agents answered ${registered.status}: ${JSON.stringify(registered.body)}`);
    const key = registered.body.apiKey;
    const submitted = await api('POST', '/v1/scans', { key, form, headers: { 'Idempotency-Key': `fresh-clone-${seed}` } });
    if (submitted.status !== 202) throw new Error(`POST /v1/scans answered ${submitted.status}: ${JSON.stringify(submitted.body)}`);
    const scan = await waitFor('the scan to complete', async () => {
      const polled = await api('GET', `/v1/scans/${submitted.body.id}`, { key });
      if (polled.body.status === 'failed') throw new Error(`scan failed: ${JSON.stringify(polled.body)}`);
      return polled.body.status === 'completed' ? polled.body : null;
    }, 120_000);
    const value = scan.value;
    log(`scan of ${truth.catalogId} (${truth.name}) completed: identified ${scan.identification?.cardId ?? '-'} ${scan.identification?.name ?? ''}, ` +
      `grade ${scan.grading?.grade ?? 'null'}, raw ${value?.rawEstimate ?? 'null'} (${value?.printing ?? '-'}) from ${value?.sources?.raw?.name ?? 'no source'} as of ${value?.sources?.raw?.asOf ?? '-'}`);
    if (!scan.identification?.name) fail('a completed scan has no identification', scan);
    if (typeof value?.rawEstimate === 'number' && value.sources?.raw?.name?.startsWith('TCGplayer') && value.sources.raw.asOf && value.sampleData === false) {
      priced = scan;
      break;
    }
  }
  if (!priced) fail('no scan returned a real raw estimate with its source and date');
  else log(`ok: a clone with no siblings starts (${firstStartSeconds.toFixed(1)} s to the base URL) and a full scan returns a real market price`);
} catch (error) {
  fail(error instanceof Error ? error.message : String(error), output.slice(-4000));
} finally {
  try { process.kill(-service.pid, 'SIGTERM'); } catch { /* already gone */ }
  await new Promise((resolve) => setTimeout(resolve, 1500));
  try { process.kill(-service.pid, 'SIGKILL'); } catch { /* already gone */ }
  if (!values.keep) rmSync(parent, { recursive: true, force: true });
}
