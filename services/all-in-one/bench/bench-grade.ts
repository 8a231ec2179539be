/**
 * npm run bench:grade [-- --mode embedded|infra] — synchronous commercial grades, POST /v1/grades over HTTP.
 *
 * Starts the whole system in this process (embedded: PGlite, the in-process bus and the in-memory grade lock;
 * infra: the real Postgres, Redis and Kafka of DATABASE_URL / REDIS_URL / KAFKA_BROKERS), registers one
 * business account and starts its grading trial through the sandbox checkout, then sends BENCH_N (default 60)
 * sequential multipart grades of photographed cards (card-synth evaluation seeds, 2-12 MP, front and back), each
 * with a new Idempotency-Key (one grade is in flight per account, so a business grades one pair at a time).
 * Latency: from sending the request to the end of the 200 response. BENCH_WARMUP (default 3) grades run first
 * and are not counted. The LAST line is one JSON object.
 */
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { generateSample, EVAL_SEED_START } from '@cardlens/card-synth';
import { startStack, type StackMode } from '../test/stack';

const modeArg = process.argv.indexOf('--mode');
const mode = (modeArg >= 0 ? process.argv[modeArg + 1] : process.env.BENCH_MODE ?? 'embedded') as StackMode;
if (mode !== 'embedded' && mode !== 'infra') throw new Error('--mode must be embedded or infra');
const N = Number(process.env.BENCH_N ?? 60);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const PHOTOS = 12;

const log = (line: string) => process.stderr.write(`${line}\n`);

log(`bench:grade mode=${mode} n=${N}: generating ${PHOTOS} photographed cards...`);
const photos = await Promise.all(
  Array.from({ length: PHOTOS }, async (_, i) => {
    const sample = await generateSample(EVAL_SEED_START + 7000 + i);
    const { width = 0, height = 0 } = await sharp(sample.frontJpeg).metadata();
    return { front: Buffer.from(sample.frontJpeg), back: Buffer.from(sample.backJpeg), megapixels: (width * height) / 1e6 };
  }),
);
const mp = photos.map((p) => p.megapixels).sort((a, b) => a - b);
log(`photos: ${mp[0]!.toFixed(1)}-${mp.at(-1)!.toFixed(1)} MP, ${(photos.reduce((s, p) => s + p.front.length + p.back.length, 0) / photos.length / 1e6).toFixed(2)} MB per pair on average`);

const setupStart = performance.now();
const stack = await startStack(mode, { RATE_LIMIT_PER_KEY_PER_MINUTE: '100000' });
log(`stack up in ${((performance.now() - setupStart) / 1000).toFixed(1)} s`);

/** A business account on the 7-day trial (sandbox checkout paid with the sandbox card that pays). */
async function trialAccount(): Promise<Record<string, string>> {
  const registered = await fetch(`${stack.baseUrl}/v1/agents`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': '10.9.0.1' },
    body: JSON.stringify({ name: 'bench grading business', contactEmail: 'bench@example.com', commercialOnly: true }),
  });
  if (registered.status !== 201) throw new Error(`registration answered ${registered.status}`);
  const headers = { Authorization: `Bearer ${((await registered.json()) as { apiKey: string }).apiKey}` };
  const checkout = await fetch(`${stack.baseUrl}/v1/subscriptions/checkout`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ plan: 'grading_5000' }) });
  const { checkoutUrl } = (await checkout.json()) as { checkoutUrl: string };
  await fetch(`${stack.baseUrl}${new URL(checkoutUrl).pathname}/pay`, { method: 'POST', body: new URLSearchParams({ card: '4242424242424242' }), redirect: 'manual' });
  for (let i = 0; i < 200; i++) {
    const me = (await (await fetch(`${stack.baseUrl}/v1/subscriptions/me`, { headers })).json()) as { status: string };
    if (me.status === 'trialing') return headers;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the trial did not start');
}

async function gradeOnce(headers: Record<string, string>, index: number): Promise<number> {
  const photo = photos[index % photos.length]!;
  const form = new FormData();
  form.append('front', new Blob([new Uint8Array(photo.front)], { type: 'image/jpeg' }), 'front.jpg');
  form.append('back', new Blob([new Uint8Array(photo.back)], { type: 'image/jpeg' }), 'back.jpg');
  const started = performance.now();
  const response = await fetch(`${stack.baseUrl}/v1/grades`, { method: 'POST', headers: { ...headers, 'Idempotency-Key': `bench-${index}` }, body: form });
  const body = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`POST /v1/grades answered ${response.status}: ${body}`);
  return ms;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;

try {
  const headers = await trialAccount();
  for (let i = 0; i < WARMUP; i++) await gradeOnce(headers, 100_000 + i);
  const latencies: number[] = [];
  for (let i = 0; i < N; i++) {
    latencies.push(await gradeOnce(headers, i));
    if ((i + 1) % 10 === 0) log(`${i + 1}/${N} grades`);
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  console.log(JSON.stringify({ p50Ms: Math.round(quantile(sorted, 0.5)), p95Ms: Math.round(quantile(sorted, 0.95)), maxMs: Math.round(sorted.at(-1)!), n: N, megapixels: `${mp[0]!.toFixed(1)}-${mp.at(-1)!.toFixed(1)}`, mode }));
} finally {
  await stack.stop();
}
