/**
 * npm run bench:scan [-- --variant served|cluster|in-process --mode embedded|infra] — prepaid full-module scans,
 * submit → completed, over HTTP, as users get them.
 *
 * served (default): the service as shipped, `npm start`'s process (PGlite on disk, in-process bus, default
 * telemetry and logs) in a child process, with the full catalog; this process is only the load generator. Its
 * clients poll every BENCH_POLL_MS (250) and honour 429 and Retry-After (the per-key limit is the default 60 a
 * minute); only registration limits are raised (every agent comes from 127.0.0.1).
 * cluster: the services as a cluster runs them, a compiled process each (and a scan worker), on the real
 * Postgres, Redis and Kafka (DATABASE_URL, REDIS_URL, KAFKA_BROKERS; a fresh database, own topic and key prefixes).
 * in-process (the earlier figures, labelled so): the whole system inside this process on the test stack
 * (`--mode infra`: the real Postgres, Redis and Kafka), limits and logs as the tests set them.
 *
 * Each run registers agents (3 trial credits: one `full` scan each) and submits BENCH_N (60) multipart `full`
 * scans of photographed cards (card-synth evaluation seeds, 2-12 MP, front and back) with BENCH_CONCURRENCY (1)
 * in flight. Latency: from sending POST /v1/scans to the poll that sees the final status. BENCH_WARMUP (3) scans
 * first, not counted; BENCH_RUNS (3) runs, medians reported. Each scan's time queued (until a poll sees it
 * processing) is reported beside its total. Served, the service's processes are read from /proc: CPU per scan
 * (all of them, and the engine processes alone) and resident memory at rest and at peak. BENCH_CPUS (a taskset
 * list) pins the served service to those cores and reports scans/min per core. The configuration is printed beside the figures;
 * the LAST line is one JSON object.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { CATALOG_DIR } from '@cardlens/catalog-data';
import { generateSample, EVAL_SEED_START } from '@cardlens/card-synth';
import { startStack } from '../test/stack';
import { clientStats, configurationLine, cpuList, politeFetch, processTree, sampleProcessTree, startCluster, startServed, type Served } from './served';
import { stackMode } from './support';

const { values } = parseArgs({ options: { variant: { type: 'string', default: 'served' }, mode: { type: 'string', default: process.env.BENCH_MODE ?? 'embedded' } } });
const variant = values.variant;
if (variant !== 'served' && variant !== 'cluster' && variant !== 'in-process') throw new Error('--variant must be served, cluster or in-process');
const mode = stackMode(values.mode);
if (variant !== 'in-process' && mode !== 'embedded') throw new Error('--mode infra runs in-process (--variant in-process): served is npm start, cluster the per-service processes');
const N = Number(process.env.BENCH_N ?? 60);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 1);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 250);
const PHOTOS = 12;
const catalogDir = process.env.CARD_CATALOG_DIR || CATALOG_DIR;

const log = (line: string) => process.stderr.write(`${line}\n`);

log(`bench:scan variant=${variant} mode=${mode} n=${N} x ${RUNS} runs, concurrency=${CONCURRENCY}: generating ${PHOTOS} photographed cards...`);
const photos = await Promise.all(
  Array.from({ length: PHOTOS }, async (_, i) => {
    const sample = await generateSample(EVAL_SEED_START + 7000 + i);
    return { front: Buffer.from(sample.frontJpeg), back: Buffer.from(sample.backJpeg) };
  }),
);
log(`photos: ${(photos.reduce((s, p) => s + p.front.length + p.back.length, 0) / photos.length / 1e6).toFixed(2)} MB per pair on average`);

const settings: Record<string, string> =
  variant === 'in-process' ? { CATALOG_DIR: catalogDir, SAMPLE_SALES_SHARE: '0.05' } : { RATE_LIMIT_NEW_AGENTS_PER_DAY: '1000000', RATE_LIMIT_REGISTRATION_ATTEMPTS_PER_HOUR: '1000000', CATALOG_DIR: catalogDir };
const target = variant === 'served' ? await startServed(settings, log) : variant === 'cluster' ? await startCluster(settings, log) : await startStack(mode, settings);
const baseUrl = target.baseUrl;

let ip = 0;
async function registerAgent(): Promise<string> {
  ip++;
  const response = await politeFetch(`${baseUrl}/v1/agents`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}` },
    body: JSON.stringify({ name: `bench ${ip}`, contactEmail: `bench${ip}@example.com` }),
  });
  if (response.status !== 201) throw new Error(`registration answered ${response.status}: ${await response.text()}`);
  return String(((await response.json()) as { apiKey: string }).apiKey);
}

interface ScanResult {
  ms: number;
  /** From sending the scan to the first poll that no longer sees it queued (its turn on the engine came). */
  waitMs: number;
  status: string;
}

async function scanOnce(index: number): Promise<ScanResult> {
  const apiKey = await registerAgent();
  const photo = photos[index % photos.length]!;
  const form = new FormData();
  form.append('modules', 'full');
  form.append('front', new Blob([photo.front], { type: 'image/jpeg' }), 'front.jpg');
  form.append('back', new Blob([photo.back], { type: 'image/jpeg' }), 'back.jpg');
  const headers = { Authorization: `Bearer ${apiKey}` };
  const started = performance.now();
  const accepted = await politeFetch(`${baseUrl}/v1/scans`, { method: 'POST', headers, body: form });
  if (accepted.status !== 202) throw new Error(`POST /v1/scans answered ${accepted.status}: ${await accepted.text()}`);
  const { id } = (await accepted.json()) as { id: number };
  let waitMs: number | undefined;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const poll = await politeFetch(`${baseUrl}/v1/scans/${id}`, { headers });
    const body = (await poll.json()) as { status: string };
    if (body.status !== 'queued') waitMs ??= performance.now() - started;
    if (body.status === 'completed' || body.status === 'failed') return { ms: performance.now() - started, waitMs: waitMs!, status: body.status };
  }
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const served = variant === 'in-process' ? undefined : (target as Served);
const mb = (bytes: number) => Math.round(bytes / 1e6);
// At rest: started and ready, nothing asked of it yet (one engine process warm).
await new Promise((resolve) => setTimeout(resolve, 2000));
const restBytes = served ? processTree(served.pids).reduce((sum, p) => sum + p.rssBytes, 0) : null;
const memory = served ? sampleProcessTree(served.pids) : undefined;

try {
  for (let i = 0; i < WARMUP; i++) await scanOnce(1000 + i);
  const runs: { p50Ms: number; p95Ms: number; maxMs: number; waitP50Ms: number; waitP95Ms: number; throughputPerMin: number; completed: number; failed: number; cpuMsPerScan: number | null; engineCpuMsPerScan: number | null }[] = [];
  for (let run = 0; run < RUNS; run++) {
    const results: ScanResult[] = [];
    const cpuBefore = memory?.cpu();
    let next = 0;
    const runStart = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < N) {
          const index = run * N + next++;
          results.push(await scanOnce(index));
        }
      }),
    );
    const wallMs = performance.now() - runStart;
    const cpuAfter = memory?.cpu();
    const sorted = results.map((r) => r.ms).sort((a, b) => a - b);
    const waits = results.map((r) => r.waitMs).sort((a, b) => a - b);
    const figures = {
      p50Ms: Math.round(quantile(sorted, 0.5)),
      p95Ms: Math.round(quantile(sorted, 0.95)),
      maxMs: Math.round(sorted.at(-1)!),
      waitP50Ms: Math.round(quantile(waits, 0.5)),
      waitP95Ms: Math.round(quantile(waits, 0.95)),
      // The service's CPU (every process of it) and its engine processes' alone, per scan of this run.
      cpuMsPerScan: cpuBefore && cpuAfter ? Math.round((cpuAfter.allMs - cpuBefore.allMs) / N) : null,
      engineCpuMsPerScan: cpuBefore && cpuAfter ? Math.round((cpuAfter.engineMs - cpuBefore.engineMs) / N) : null,
      throughputPerMin: Math.round((N / wallMs) * 60_000 * 10) / 10,
      completed: results.filter((r) => r.status === 'completed').length,
      failed: results.filter((r) => r.status === 'failed').length,
    };
    runs.push(figures);
    log(
      `run ${run + 1}/${RUNS}: p50 ${figures.p50Ms} ms, p95 ${figures.p95Ms} ms, max ${figures.maxMs} ms (queued p50 ${figures.waitP50Ms} ms, p95 ${figures.waitP95Ms} ms), ` +
        `${figures.throughputPerMin} scans/min, CPU ${figures.cpuMsPerScan ?? '-'} ms/scan (engine ${figures.engineCpuMsPerScan ?? '-'}), ${figures.failed} failed`,
    );
  }
  const summary = {
    bench: 'scan',
    variant,
    mode,
    n: N,
    runs: RUNS,
    concurrency: CONCURRENCY,
    pollMs: POLL_MS,
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p95Ms: median(runs.map((r) => r.p95Ms)),
    maxMs: Math.max(...runs.map((r) => r.maxMs)),
    waitP50Ms: median(runs.map((r) => r.waitP50Ms)),
    waitP95Ms: median(runs.map((r) => r.waitP95Ms)),
    cpuMsPerScan: served ? median(runs.map((r) => r.cpuMsPerScan!)) : null,
    engineCpuMsPerScan: served ? median(runs.map((r) => r.engineCpuMsPerScan!)) : null,
    /** Resident memory of the service's processes (npm's own process, about 70 MB under `npm start`, not counted). */
    rssRestMb: restBytes === null ? null : mb(restBytes),
    rssPeakMb: memory ? mb(memory.peakBytes) : null,
    throughputPerMin: median(runs.map((r) => r.throughputPerMin)),
    completed: runs.reduce((s, r) => s + r.completed, 0),
    failed: runs.reduce((s, r) => s + r.failed, 0),
    throttled: clientStats.throttled,
    throttledWaitMs: clientStats.waitedMs,
    perRun: runs,
    /** Throughput per core the service had (BENCH_CPUS), for sizing a cluster. */
    serviceCores: process.env.BENCH_CPUS ? cpuList(process.env.BENCH_CPUS).length : null,
    throughputPerMinPerCore: process.env.BENCH_CPUS ? Math.round((median(runs.map((r) => r.throughputPerMin)) / cpuList(process.env.BENCH_CPUS).length) * 10) / 10 : null,
  };
  console.log(
    variant === 'served'
      ? configurationLine(settings)
      : variant === 'cluster'
        ? configurationLine(served!.settings, 'a process per service as the chart runs them, on Postgres, Redis and Kafka, default telemetry and JSON logs')
        : `configuration: ${variant} (${mode}), limits and logs as the tests set them`,
  );
  console.log(
    `full scans, ${CONCURRENCY} in flight, medians of ${RUNS} runs of ${N}: p50 ${summary.p50Ms} ms, p95 ${summary.p95Ms} ms (queued p50 ${summary.waitP50Ms} ms, p95 ${summary.waitP95Ms} ms), ` +
      `${summary.throughputPerMin} scans/min; 429s waited out: ${summary.throttled}`,
  );
  if (served) {
    console.log(
      `CPU per scan: ${summary.cpuMsPerScan} ms for the whole service, ${summary.engineCpuMsPerScan} ms of it in the engine processes; memory of the service's processes: ${summary.rssRestMb} MB at rest, ${summary.rssPeakMb} MB at peak`,
    );
  }
  console.log(JSON.stringify(summary));
} finally {
  memory?.stop();
  await target.stop();
}
process.exit(0);
