// Runs the staged images (tools/images/stage.mjs) as a cluster would, and proves they work on their own:
//
//   node tools/images/check.mjs [--images DIR]        (npm run images:check; CI step "Service images")
//
// Every image is staged into a folder outside the repository, so nothing can be loaded from the repository's
// node_modules or sources: a missing file fails here, not in production. Then, on the real Postgres (a fresh
// database), Redis and Kafka (own topic namespace): the migrate image applies every service's migrations, each
// service starts from its own folder with `node --import ./dist/register.mjs dist/<entry>.mjs` (the chart's
// command; migrations off, as in the chart), and through the staged gateway an agent registers, a `full` scan
// completes with identification, grade and value, and a trial business gets a commercial grade.
// Needs DATABASE_URL, REDIS_URL and KAFKA_BROKERS (defaults: the local ones `.ci/run` starts).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = parseArgs({ options: { images: { type: 'string' } } });
const work = mkdtempSync(path.join(tmpdir(), 'cardlens-images-check-'));
const imagesDir = values.images ? path.resolve(values.images) : path.join(work, 'images');
const started = Date.now();
const log = (message) => process.stdout.write(`[images:check +${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`);

const adminUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const suffix = `${process.pid}_${Date.now().toString(36)}`;
const database = `cardlens_images_${suffix}`;
const databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${database}` }).toString();
const basePort = 30000 + (process.pid % 20000);
const port = (offset) => basePort + offset;
const address = (offset) => `127.0.0.1:${port(offset)}`;
const gatewayUrl = `http://127.0.0.1:${port(0)}`;

/** One environment for every process: each service's config reads only its own variables. */
const env = {
  PATH: process.env.PATH,
  HOME: process.env.HOME ?? tmpdir(),
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  DATABASE_URL: databaseUrl,
  MIGRATE_ON_START: 'false',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
  KAFKA_TOPIC_PREFIX: `images-${suffix}.`,
  RATE_LIMIT_KEY_PREFIX: `images-${suffix}:`,
  GATEWAY_PORT: String(port(0)),
  PUBLIC_BASE_URL: gatewayUrl,
  ACCOUNTS_GRPC_PORT: String(port(1)),
  BILLING_GRPC_PORT: String(port(2)),
  SCANS_GRPC_PORT: String(port(3)),
  GRADING_GRPC_PORT: String(port(4)),
  VALUATION_GRPC_PORT: String(port(5)),
  INFERENCE_GRPC_PORT: String(port(6)),
  ACCOUNTS_GRPC_ADDRESS: address(1),
  BILLING_GRPC_ADDRESS: address(2),
  SCANS_GRPC_ADDRESS: address(3),
  GRADING_GRPC_ADDRESS: address(4),
  VALUATION_GRPC_ADDRESS: address(5),
  INFERENCE_GRPC_ADDRESS: address(6),
  GRADING_TEMP_DIR: path.join(work, 'grading-tmp'),
  // The valuation service's small test catalog (the full one takes half a minute to load), with sample sales.
  CATALOG_DIR: path.join(ROOT, 'services/valuation/test/fixtures/catalog'),
  CATALOG_AUTOLOAD: 'true',
  SAMPLE_SALES: 'true',
  SAMPLE_SALES_SHARE: '1',
  INFERENCE_CONCURRENCY: '1',
};

const children = [];
function startImage(image, entry) {
  const cwd = path.join(imagesDir, image);
  // The chart's command (charts/cardlens/templates/deployment.yaml).
  const child = spawn('node', ['--enable-source-maps', '--import', './dist/register.mjs', `dist/${entry}.mjs`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk) => (output = (output + chunk.toString()).slice(-20_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const record = { name: `${image}/${entry}`, child, output: () => output, exited: false };
  child.on('exit', (code, signal) => {
    record.exited = true;
    if (!stopping) log(`${record.name} exited (${code ?? signal})`);
  });
  children.push(record);
  return record;
}

let stopping = false;
async function cleanup() {
  stopping = true;
  for (const { child } of children) child.kill('SIGTERM');
  await Promise.all(children.map(({ child, exited }) => (exited ? undefined : new Promise((resolve) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); resolve(); }, 15_000);
    child.once('exit', () => { clearTimeout(timer); resolve(); });
  }))));
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect().then(() => admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)).finally(() => admin.end()).catch(() => {});
  rmSync(work, { recursive: true, force: true });
}

async function api(method, route, { key, json, form, headers = {} } = {}) {
  const response = await fetch(`${gatewayUrl}${route}`, {
    method,
    headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), ...(json ? { 'Content-Type': 'application/json' } : {}), ...headers },
    body: json ? JSON.stringify(json) : form,
    redirect: 'manual',
  });
  const text = await response.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, body, headers: response.headers };
}

function expect(condition, what, detail) {
  if (!condition) throw new Error(`${what}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
}

async function waitFor(what, probe, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const crashed = children.find((c) => c.exited);
    if (crashed) throw new Error(`${crashed.name} exited while waiting for ${what}:\n${crashed.output()}`);
    const result = await probe().catch(() => undefined);
    if (result) return result;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

try {
  if (!values.images) {
    log(`staging every image into ${imagesDir}`);
    execFileSync('node', [path.join(ROOT, 'tools/images/stage.mjs'), '--out', imagesDir], { stdio: 'inherit' });
  }

  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();

  log('migrate image: every service migration');
  execFileSync('node', ['--enable-source-maps', 'dist/migrate.mjs', 'migrate'], { cwd: path.join(imagesDir, 'migrate'), env, stdio: 'inherit' });

  log('starting every service image');
  for (const [image, entry] of [['inference', 'main'], ['valuation', 'main'], ['billing', 'main'], ['accounts', 'main'], ['scans', 'main'], ['scans', 'worker'], ['grading', 'main'], ['gateway', 'main']]) {
    startImage(image, entry);
  }
  await waitFor('the gateway to be ready', async () => (await api('GET', '/readyz')).status === 200, 240_000);
  log('ready');

  const photos = path.join(work, 'photos');
  execFileSync('npx', ['tsx', 'packages/card-synth/src/cli.ts', '--from', '1000010', '--count', '1', '--out', photos], { cwd: ROOT, stdio: 'ignore' });
  const pair = () => {
    const form = new FormData();
    for (const side of ['front', 'back']) form.append(side, new Blob([readFileSync(path.join(photos, '1000010', `${side}.jpg`))], { type: 'image/jpeg' }), `${side}.jpg`);
    return form;
  };

  // Accounts, billing, scans, the worker over Kafka, inference and valuation.
  const registered = await api('POST', '/v1/agents', { json: { name: 'images-check', contactEmail: 'owner@example.com' } });
  expect(registered.status === 201, 'POST /v1/agents', registered.body);
  const key = registered.body.apiKey;
  const form = pair();
  form.append('modules', 'full');
  const submitted = await api('POST', '/v1/scans', { key, form, headers: { 'Idempotency-Key': 'images-check-scan' } });
  expect(submitted.status === 202, 'POST /v1/scans', submitted.body);
  const scan = await waitFor(
    'the scan to complete',
    async () => {
      const polled = await api('GET', `/v1/scans/${submitted.body.id}`, { key });
      if (polled.body.status === 'failed') throw new Error(`scan failed: ${JSON.stringify(polled.body)}`);
      return polled.body.status === 'completed' ? polled.body : undefined;
    },
    120_000,
  );
  expect(scan.identification?.name && typeof scan.grading?.grade === 'number' && scan.value, 'completed scan', scan);
  log(`scan completed: ${scan.identification.name}, grade ${scan.grading.grade}`);

  // The grading service (Redis lock, temporary photo area) on a sandbox trial.
  const checkout = await api('POST', '/v1/subscriptions/checkout', { key, json: { plan: 'grading_5000' } });
  expect(checkout.status === 200 || checkout.status === 201, 'POST /v1/subscriptions/checkout', checkout.body);
  const paid = await fetch(`${checkout.body.checkoutUrl}/pay`, { method: 'POST', body: new URLSearchParams({ card: '4242424242424242' }), redirect: 'manual' });
  expect(paid.status === 303, 'sandbox checkout pay', String(paid.status));
  await waitFor('the trial to start', async () => (await api('GET', '/v1/subscriptions/me', { key })).body.status === 'trialing', 60_000);
  const grade = await api('POST', '/v1/grades', { key, form: pair(), headers: { 'Idempotency-Key': 'images-check-grade' } });
  expect(grade.status === 200 && grade.body.billingSource === 'trial' && typeof grade.body.grading?.grade === 'number', 'POST /v1/grades', grade.body);
  log(`trial grade: ${grade.body.grading.grade}`);
  process.stdout.write(`${JSON.stringify({ ok: true, images: imagesDir, seconds: (Date.now() - started) / 1000 })}\n`);
} catch (error) {
  process.stderr.write(`[images:check] FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
  for (const c of children) process.stderr.write(`--- ${c.name} (last output) ---\n${c.output().slice(-3000)}\n`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
