/**
 * npm run bench:auth [-- --mode infra|embedded --agents 20 --requests 6000 --concurrency 500 --runs 3 --target missing|scan]
 *
 * Authentication under a burst: many concurrent authenticated requests over few API keys, with the gateway's
 * API-key cache off (AUTH_CACHE_TTL_MS=0: one accounts lookup per request) and on (the default 10 s). Each run
 * starts the whole system in this process (infra, the default: the real Postgres, Redis and Kafka), registers
 * `--agents` agents, then sends `--requests` GET /v1/scans/{id} for a scan id that does not exist (auth, the
 * per-key limit and one scans call; the answer is 404 not_found) with `--concurrency` in flight. With
 * `--target scan` each agent first submits one `grade` scan of a card-synth photo and waits for it to complete,
 * and the burst reads those scans (200: auth, the limit, the scan read and the balance read that fills
 * X-Credits-Remaining, which a GET starts as soon as the key is known). Reports per
 * setting the median over runs of throughput, p50/p99 latency and the share of 5xx answers (503 from an
 * accounts deadline is what the cache prevents). Human summary on stdout; the LAST line is one JSON object.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { EVAL_SEED_START, generateSample } from '@cardlens/card-synth';
import { startStack } from '../test/stack';
import { completedGradeScan, positiveInt, stackMode } from './support';

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'infra' },
    agents: { type: 'string', default: '20' },
    requests: { type: 'string', default: '6000' },
    concurrency: { type: 'string', default: '500' },
    runs: { type: 'string', default: '3' },
    target: { type: 'string', default: 'missing' },
  },
});
const mode = stackMode(values.mode);
const agents = positiveInt('agents', values.agents);
const requests = positiveInt('requests', values.requests);
const concurrency = positiveInt('concurrency', values.concurrency);
const runs = positiveInt('runs', values.runs);
const target = values.target;
if (target !== 'missing' && target !== 'scan') throw new Error('--target is missing or scan');
const photo = target === 'scan' ? await generateSample(EVAL_SEED_START + 7000) : undefined;

interface RunResult { throughput: number; p50: number; p99: number; errorShare: number }

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function run(cacheTtlMs: number): Promise<RunResult> {
  const stack = await startStack(mode, {
    AUTH_CACHE_TTL_MS: String(cacheTtlMs),
    RATE_LIMIT_NEW_AGENTS_PER_DAY: '1000000',
    RATE_LIMIT_REGISTRATION_ATTEMPTS_PER_HOUR: '1000000',
    RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000',
  });
  try {
    const keys: string[] = [];
    for (let i = 0; i < agents; i++) {
      const r = await fetch(`${stack.baseUrl}/v1/agents`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': `198.18.${i >> 8}.${i & 255}` }, body: JSON.stringify({ name: `auth bench ${i}` }) });
      if (r.status !== 201) throw new Error(`registration answered ${r.status}`);
      keys.push(((await r.json()) as { apiKey: string }).apiKey);
    }
    const paths = target === 'scan'
      ? await Promise.all(keys.map(async (key) => `/v1/scans/${await completedGradeScan(stack.baseUrl, key, photo!)}`))
      : keys.map(() => '/v1/scans/999999999');
    const expected = target === 'scan' ? 200 : 404;
    const latencies: number[] = [];
    let errors = 0;
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      for (let i = next++; i < requests; i = next++) {
        const t0 = performance.now();
        const r = await fetch(`${stack.baseUrl}${paths[i % keys.length]}`, { headers: { Authorization: `Bearer ${keys[i % keys.length]}` } });
        await r.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (r.status >= 500) errors++;
        else if (r.status !== expected) throw new Error(`unexpected ${r.status}`);
        else if (expected === 200 && r.headers.get('x-credits-remaining') === null) throw new Error('a 200 without X-Credits-Remaining');
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return { throughput: requests / seconds, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), errorShare: errors / requests };
  } finally {
    await stack.stop();
  }
}

const results: Record<string, RunResult[]> = { off: [], on: [] };
for (let r = 0; r < runs; r++) {
  for (const [name, ttl] of [['off', 0], ['on', 10_000]] as const) {
    const result = await run(ttl);
    results[name]!.push(result);
    process.stderr.write(`run ${r + 1}/${runs} cache ${name}: ${result.throughput.toFixed(0)} req/s, p50 ${result.p50.toFixed(0)} ms, p99 ${result.p99.toFixed(0)} ms, 5xx ${(result.errorShare * 100).toFixed(1)} %\n`);
  }
}
const summary = Object.fromEntries(
  Object.entries(results).map(([name, rs]) => [
    name,
    { throughput: Math.round(median(rs.map((x) => x.throughput))), p50Ms: Math.round(median(rs.map((x) => x.p50))), p99Ms: Math.round(median(rs.map((x) => x.p99))), errorShare: median(rs.map((x) => x.errorShare)) },
  ]),
);
console.log(`auth burst (${mode}, GET ${target === 'scan' ? 'an existing scan' : 'a missing scan'}, ${agents} keys, ${requests} requests, ${concurrency} in flight; medians of ${runs} runs):`);
for (const [name, s] of Object.entries(summary)) console.log(`  cache ${name}: ${s.throughput} req/s, p50 ${s.p50Ms} ms, p99 ${s.p99Ms} ms, 5xx ${(s.errorShare * 100).toFixed(1)} %`);
console.log(`  throughput ratio on/off: ${(summary.on!.throughput / summary.off!.throughput).toFixed(2)}`);
console.log(JSON.stringify({ bench: 'auth', mode, target, agents, requests, concurrency, runs, ...summary }));
process.exit(0);
