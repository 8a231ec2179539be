/**
 * npm run bench:gateway [-- --variant served|in-process --mode embedded|infra --connections 50 --seconds 10 --runs 3]
 *
 * Throughput of the gateway's common authenticated reads against a bare express route, with autocannon in this
 * process and the servers in processes of their own:
 *   served (default): the service as shipped, `npm start`'s process with its default telemetry (tracing) and JSON
 *                 access logs (to a file), only the rate limits raised so that the load is not refused;
 *   in-process:   the earlier figures, labelled so: the test stack inside this process (silent logs, no
 *                 telemetry; `--mode infra` on the real Postgres, Redis and Kafka).
 * Registers an agent, submits one `grade` scan and waits for it, then measures, each for `--seconds` with
 * `--connections` concurrent connections, `--runs` times, interleaved:
 *   bare          GET /ping on a bare express app in its own process (the ceiling: no auth, no gRPC, no database)
 *   subscription  GET /v1/subscriptions/me (cached key, rate limit, the gateway's kept subscription view, which
 *                 also gives the balance)
 *   scan          GET /v1/scans/{id} of a completed scan, as a polling agent reads it: cached key, rate limit, the
 *                 gateway's kept finished scan and its JSON, and the balance from the gateway's kept copy
 * Reports the median requests/s and p50/p99 latency of each and the ratio to bare, the configuration beside them.
 * The LAST line is one JSON object.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { EVAL_SEED_START, generateSample } from '@cardlens/card-synth';
import { startStack } from '../test/stack';
import { configurationLine, startServed } from './served';
import { completedGradeScan, positiveInt, stackMode } from './support';

const { values } = parseArgs({
  options: {
    variant: { type: 'string', default: 'served' },
    mode: { type: 'string', default: 'embedded' },
    connections: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '10' },
    runs: { type: 'string', default: '3' },
  },
});
const mode = stackMode(values.mode);
const connections = positiveInt('connections', values.connections);
const seconds = positiveInt('seconds', values.seconds);
const runs = positiveInt('runs', values.runs);
const log = (line: string) => process.stderr.write(`${line}\n`);

const variant = values.variant;
if (variant !== 'served' && variant !== 'in-process') throw new Error('--variant must be served or in-process');
if (variant === 'served' && mode !== 'embedded') throw new Error('--mode infra runs in-process (--variant in-process): the served variant is npm start');

// The bare ceiling in a process of its own.
const bareProcess = spawn(fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url)), [path.join(path.dirname(fileURLToPath(import.meta.url)), 'bare-server.ts')], {
  stdio: ['ignore', 'pipe', 'inherit'],
  detached: true,
});
const barePort = await new Promise<string>((resolve) => bareProcess.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())));
const bareUrl = `http://127.0.0.1:${barePort}`;

const limits = { RATE_LIMIT_PER_KEY_PER_MINUTE: '100000000', RATE_LIMIT_OPEN_PER_MINUTE: '100000000', ...(process.env.BENCH_SERVICE_ENV ? JSON.parse(process.env.BENCH_SERVICE_ENV) as Record<string, string> : {}) };
const stack = variant === 'served' ? await startServed(limits, log) : await startStack(mode, limits);
try {
  const registered = await fetch(`${stack.baseUrl}/v1/agents`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'gateway bench', contactEmail: 'bench@example.com' }) });
  const { apiKey } = (await registered.json()) as { apiKey: string };
  const headers = { Authorization: `Bearer ${apiKey}` };
  const id = await completedGradeScan(stack.baseUrl, apiKey, await generateSample(EVAL_SEED_START + 7000));

  const targets = {
    bare: { url: `${bareUrl}/ping`, headers: {} },
    subscription: { url: `${stack.baseUrl}/v1/subscriptions/me`, headers },
    scan: { url: `${stack.baseUrl}/v1/scans/${id}`, headers },
  } as const;
  type Name = keyof typeof targets;
  const results: Record<Name, Array<{ rps: number; p50: number; p99: number; errors: number }>> = { bare: [], subscription: [], scan: [] };
  for (let r = 0; r < runs; r++) {
    for (const name of Object.keys(targets) as Name[]) {
      const result = await autocannon({ url: targets[name].url, headers: targets[name].headers, connections, duration: seconds });
      const errors = result.errors + result.timeouts + result.non2xx;
      results[name].push({ rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors });
      log(`run ${r + 1}/${runs} ${name}: ${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, errors ${errors}`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const summary = Object.fromEntries(
    (Object.keys(results) as Name[]).map((name) => [name, { rps: Math.round(median(results[name].map((x) => x.rps))), p50Ms: median(results[name].map((x) => x.p50)), p99Ms: median(results[name].map((x) => x.p99)), errors: median(results[name].map((x) => x.errors)) }]),
  ) as Record<Name, { rps: number; p50Ms: number; p99Ms: number; errors: number }>;
  const ratio = (name: Name) => Number((summary[name].rps / summary.bare.rps).toFixed(3));
  console.log(variant === 'served' ? configurationLine(limits) : `configuration: in-process test stack (${mode}), silent logs, no telemetry`);
  console.log(`gateway (${variant}, ${connections} connections, ${seconds} s, medians of ${runs} runs; autocannon in the bench process):`);
  for (const name of Object.keys(summary) as Name[]) console.log(`  ${name.padEnd(12)} ${summary[name].rps} req/s, p50 ${summary[name].p50Ms} ms, p99 ${summary[name].p99Ms} ms${name === 'bare' ? '' : `, ${ratio(name)}x bare`}`);
  console.log(JSON.stringify({ bench: 'gateway', variant, mode, connections, seconds, runs, ...summary, ratios: { subscription: ratio('subscription'), scan: ratio('scan') } }));
} finally {
  await stack.stop();
  process.kill(-bareProcess.pid!, 'SIGINT');
}
process.exit(0);
