import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as grpc from '@grpc/grpc-js';
import { generateSample } from '@cardlens/card-synth';
import { inferenceV1 } from '@cardlens/contracts';
import { describeWithInfra } from '@cardlens/testing';
import { startStack, type Stack } from './stack';

// A scan whose worker dies mid-job is redelivered and completed once, charged once. Real process kills
// (SIGKILL): the whole embedded app (PGlite on disk, in-process bus: the restart queues interrupted scans
// again), and a scan-worker process on Kafka (the consumer group hands the uncommitted job to another worker).

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const TEST_CATALOG_DIR = fileURLToPath(new URL('../../valuation/test/fixtures/catalog', import.meta.url));

function startProcess(entry: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, entry)], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.resume();
  return child;
}

const exited = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

async function stopProcess(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  await exited(child);
}

async function multipartFull(photo: { front: Uint8Array; back: Uint8Array }): Promise<FormData> {
  const form = new FormData();
  form.append('modules', 'full');
  form.append('front', new Blob([photo.front], { type: 'image/jpeg' }), 'front.jpg');
  form.append('back', new Blob([photo.back], { type: 'image/jpeg' }), 'back.jpg');
  return form;
}

/** Polls until `done(status)`; returns the last body. */
async function pollScan(baseUrl: string, apiKey: string, id: number, done: (status: string) => boolean, timeoutMs: number, everyMs = 20) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(`${baseUrl}/v1/scans/${id}`, { headers: { Authorization: `Bearer ${apiKey}` } });
    const body = (await response.json()) as Record<string, unknown>;
    if (response.status === 429 && Date.now() < deadline) {
      // Polled past the key's rate limit while the job waited for a worker (a slow machine): wait as told.
      await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after') ?? 1) * 1000));
      continue;
    }
    if (response.status !== 200) throw new Error(`GET /v1/scans/${id}: ${response.status} ${JSON.stringify(body)}`);
    if (done(String(body.status))) return body;
    if (Date.now() > deadline) throw new Error(`scan ${id} is still ${String(body.status)}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

async function registerAgent(baseUrl: string, ip: string): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/agents`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': ip },
    body: JSON.stringify({ name: 'crash bot', contactEmail: 'crash@example.com' }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { apiKey: string }).apiKey;
}

async function credits(baseUrl: string, apiKey: string): Promise<number> {
  const response = await fetch(`${baseUrl}/v1/agents/me`, { headers: { Authorization: `Bearer ${apiKey}` } });
  return ((await response.json()) as { credits: number }).credits;
}

describe('embedded mode: the process dies mid-scan', () => {
  let dir: string;
  let app: ChildProcess | undefined;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'cardlens-crash-'));
  });
  afterAll(async () => {
    await stopProcess(app);
    rmSync(dir, { recursive: true, force: true });
  });

  /** `npm start`'s entry point on a data directory of the test's own; resolves with its base URL. */
  const startApp = async (): Promise<string> => {
    app = startProcess('services/all-in-one/src/main.ts', {
      PGLITE_DIR: path.join(dir, 'pglite'),
      BLOB_DIR: path.join(dir, 'blobs'),
      GATEWAY_PORT: '0',
      TRUST_PROXY_HOPS: '1',
      CATALOG_DIR: TEST_CATALOG_DIR,
      PRICES_DIR: fileURLToPath(new URL('../../valuation/test/fixtures/prices', import.meta.url)),
      SAMPLE_SALES_SHARE: '1',
    });
    let output = '';
    return new Promise<string>((resolve, reject) => {
      app!.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /Base URL: (http:\/\/\S+)/.exec(output);
        if (match) resolve(match[1]!);
      });
      app!.once('exit', (code) => reject(new Error(`the app exited (${code}) before it was up`)));
    });
  };

  it('after a restart the interrupted scan is queued again and completed once, charged once', async () => {
    const photo = await generateSample(1_000_012, { photo: { megapixels: 12 } });
    let baseUrl = await startApp();
    const apiKey = await registerAgent(baseUrl, '192.0.2.10');
    const accepted = await fetch(`${baseUrl}/v1/scans`, { method: 'POST', headers: { Authorization: `Bearer ${apiKey}` }, body: await multipartFull({ front: photo.frontJpeg, back: photo.backJpeg }) });
    expect(accepted.status).toBe(202);
    const { id } = (await accepted.json()) as { id: number };
    // The worker has taken the job (the 12-MP analysis takes over a second): kill the whole process now.
    const seen = await pollScan(baseUrl, apiKey, id, (status) => status !== 'queued', 60_000, 5);
    expect(seen.status).toBe('processing');
    await stopProcess(app, 'SIGKILL');

    baseUrl = await startApp();
    const done = await pollScan(baseUrl, apiKey, id, (status) => status === 'completed' || status === 'failed', 120_000, 100);
    expect(done).toMatchObject({ id, status: 'completed', modules: ['full'] });
    expect(done).toHaveProperty('grading');
    expect(done).toHaveProperty('value');
    const again = await pollScan(baseUrl, apiKey, id, () => true, 1000);
    expect(again.completedAt).toBe(done.completedAt);
    expect(await credits(baseUrl, apiKey)).toBe(1);
  }, 240_000);
});

describeWithInfra(['postgres', 'redis', 'kafka'], 'Kafka: a scan worker process dies mid-job', () => {
  let stack: Stack;
  let blobDir: string;
  let stalled: grpc.Server;
  let stalledPort: number;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    blobDir = mkdtempSync(path.join(tmpdir(), 'cardlens-worker-crash-'));
    // No worker in the stack: the scans come only to the worker processes below.
    stack = await startStack('infra', { BLOB_DIR: blobDir, SCAN_WORKER_ENABLED: 'false' });
    // An inference endpoint that accepts the analysis and never answers: the first worker is killed while it waits.
    stalled = new grpc.Server();
    stalled.addService(inferenceV1.InferenceServiceService, { analyzeCard: () => undefined });
    stalledPort = await new Promise<number>((resolve, reject) =>
      stalled.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port))),
    );
  }, 180_000);
  afterAll(async () => {
    for (const worker of workers) await stopProcess(worker);
    stalled?.forceShutdown();
    await stack?.stop();
    if (blobDir) rmSync(blobDir, { recursive: true, force: true });
  });

  const startWorker = (inferenceAddress: string) => {
    const worker = startProcess('services/scans/src/worker.ts', {
      ...stack.infraEnv,
      BLOB_DIR: blobDir,
      BILLING_GRPC_ADDRESS: `127.0.0.1:${stack.ports.billing}`,
      VALUATION_GRPC_ADDRESS: `127.0.0.1:${stack.ports.valuation}`,
      INFERENCE_GRPC_ADDRESS: inferenceAddress,
      SCAN_WORKER_HEALTH_PORT: '0',
      KAFKA_SESSION_TIMEOUT_MS: '6000',
    });
    workers.push(worker);
    return worker;
  };

  it('the job goes to another worker and the scan completes once, charged once', async () => {
    const apiKey = await registerAgent(stack.baseUrl, '192.0.2.20');
    const photo = await generateSample(1_000_010, { photo: { megapixels: 2 } });
    const first = startWorker(`127.0.0.1:${stalledPort}`);
    const accepted = await fetch(`${stack.baseUrl}/v1/scans`, { method: 'POST', headers: { Authorization: `Bearer ${apiKey}` }, body: await multipartFull({ front: photo.frontJpeg, back: photo.backJpeg }) });
    expect(accepted.status).toBe(202);
    const { id } = (await accepted.json()) as { id: number };
    const taken = await pollScan(stack.baseUrl, apiKey, id, (status) => status !== 'queued', 60_000, 50);
    expect(taken).toMatchObject({ status: 'processing', progressPercent: 10 });
    await stopProcess(first, 'SIGKILL');

    startWorker(`127.0.0.1:${stack.ports.inference}`);
    const done = await pollScan(stack.baseUrl, apiKey, id, (status) => status === 'completed' || status === 'failed', 120_000, 100);
    expect(done).toMatchObject({ id, status: 'completed' });
    expect(done).toHaveProperty('grading');
    expect(await credits(stack.baseUrl, apiKey)).toBe(1);
  }, 240_000);
});
