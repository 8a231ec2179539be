/**
 * npm run bench:scan [-- --mode embedded|infra] — prepaid full-module scans, submit → completed, over HTTP.
 *
 * Starts the whole system in this process (embedded: PGlite and the in-process bus; infra: the real Postgres,
 * Redis and Kafka of DATABASE_URL / REDIS_URL / KAFKA_BROKERS) with the full catalog and the embedded mode's
 * sample sales, registers agents (each registered agent has 3 trial credits, enough for one `full` scan), then
 * submits BENCH_N (default 60) multipart `full` scans of photographed cards (card-synth evaluation seeds, 2-12
 * MP, front and back) with BENCH_CONCURRENCY (default 1) scans in flight, polling each every 25 ms until it
 * is completed or failed. Latency: from sending POST /v1/scans to the poll that sees the final status.
 * BENCH_WARMUP (default 3) scans run first and are not counted. The LAST line is one JSON object.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { CATALOG_DIR } from '@cardlens/catalog-data';
import { generateSample, EVAL_SEED_START } from '@cardlens/card-synth';
import { startStack, type StackMode } from '../test/stack';

const modeArg = process.argv.indexOf('--mode');
const mode = (modeArg >= 0 ? process.argv[modeArg + 1] : process.env.BENCH_MODE ?? 'embedded') as StackMode;
if (mode !== 'embedded' && mode !== 'infra') throw new Error('--mode must be embedded or infra');
const N = Number(process.env.BENCH_N ?? 60);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 1);
const PHOTOS = 12;
const catalogDir = process.env.CARD_CATALOG_DIR || CATALOG_DIR;

const log = (line: string) => process.stderr.write(`${line}\n`);

log(`bench:scan mode=${mode} n=${N} concurrency=${CONCURRENCY}: generating ${PHOTOS} photographed cards...`);
const photos = await Promise.all(
  Array.from({ length: PHOTOS }, async (_, i) => {
    const sample = await generateSample(EVAL_SEED_START + 7000 + i);
    return { front: Buffer.from(sample.frontJpeg), back: Buffer.from(sample.backJpeg) };
  }),
);
log(`photos: ${(photos.reduce((s, p) => s + p.front.length + p.back.length, 0) / photos.length / 1e6).toFixed(2)} MB per pair on average`);

const setupStart = performance.now();
const blobDir = mkdtempSync(path.join(tmpdir(), 'cardlens-bench-scan-'));
const stack = await startStack(mode, { CATALOG_DIR: catalogDir, SAMPLE_SALES_SHARE: '0.05', BLOB_DIR: blobDir });
log(`stack up in ${((performance.now() - setupStart) / 1000).toFixed(1)} s`);

let ip = 0;
async function registerAgent(): Promise<string> {
  ip++;
  const response = await fetch(`${stack.baseUrl}/v1/agents`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}` },
    body: JSON.stringify({ name: `bench ${ip}`, contactEmail: `bench${ip}@example.com` }),
  });
  if (response.status !== 201) throw new Error(`registration answered ${response.status}`);
  return String(((await response.json()) as { apiKey: string }).apiKey);
}

async function scanOnce(index: number): Promise<{ ms: number; status: string }> {
  const apiKey = await registerAgent();
  const photo = photos[index % photos.length]!;
  const form = new FormData();
  form.append('modules', 'full');
  form.append('front', new Blob([photo.front], { type: 'image/jpeg' }), 'front.jpg');
  form.append('back', new Blob([photo.back], { type: 'image/jpeg' }), 'back.jpg');
  const headers = { Authorization: `Bearer ${apiKey}` };
  const started = performance.now();
  const accepted = await fetch(`${stack.baseUrl}/v1/scans`, { method: 'POST', headers, body: form });
  if (accepted.status !== 202) throw new Error(`POST /v1/scans answered ${accepted.status}: ${await accepted.text()}`);
  const { id } = (await accepted.json()) as { id: number };
  for (;;) {
    const poll = await fetch(`${stack.baseUrl}/v1/scans/${id}`, { headers });
    const body = (await poll.json()) as { status: string };
    if (body.status === 'completed' || body.status === 'failed') return { ms: performance.now() - started, status: body.status };
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;

try {
  for (let i = 0; i < WARMUP; i++) await scanOnce(1000 + i);
  const results: { ms: number; status: string }[] = [];
  let next = 0;
  const runStart = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < N) {
        const index = next++;
        results.push(await scanOnce(index));
        if (results.length % 10 === 0) log(`${results.length}/${N} scans`);
      }
    }),
  );
  const wallMs = performance.now() - runStart;
  const sorted = results.map((r) => r.ms).sort((a, b) => a - b);
  const summary = {
    p50Ms: Math.round(quantile(sorted, 0.5)),
    p95Ms: Math.round(quantile(sorted, 0.95)),
    maxMs: Math.round(sorted.at(-1)!),
    throughputPerMin: Math.round((N / wallMs) * 60_000 * 10) / 10,
    n: N,
    completed: results.filter((r) => r.status === 'completed').length,
    failed: results.filter((r) => r.status === 'failed').length,
    concurrency: CONCURRENCY,
    mode,
  };
  console.log(JSON.stringify(summary));
} finally {
  await stack.stop();
  rmSync(blobDir, { recursive: true, force: true });
}
