import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { generateSample, glyphDensePhoto } from '@cardlens/card-synth';
import { openSql, type Sql } from './sql';
import { startStack, type Stack } from './stack';

// Issue 49's flood (point 1, poison isolation and fairness), through the whole embedded system: first a quiet run (a
// few ordinary accounts scan ordinary cards; each scan's time from submit to completed is measured), then the same scans again while two free accounts
// flood the engine with poison photos (three scans each of its own photo: six in all, as in the report, where six
// of them caused 15 engine attempts and 13 engine restarts and delayed everyone else's scans to 225-301 s).
// Every poison scan must fail and be refunded, each distinct poison photo must reach the engine at most once (an
// engine process killed at its budget is an engine attempt: counted from the engine processes this test process
// forked), and the ordinary scans' p95 must stay within max(2 x quiet p95, quiet p95 + a floor of one analysis
// budget and one engine restart: see allowanceMs).
//
// Config knobs (so the test takes about a minute here): the analysis budget is 10 s instead of 20 s (the poison
// photo takes the engine far longer than that on any machine; an ordinary card about a second, a fresh engine
// process's first one a few), and two engine processes, both kept warm (INFERENCE_CONCURRENCY /
// INFERENCE_WARM_PROCESSES: the same two slots on any CI machine, and no on-demand start or idle stop to blur the
// count of killed engine processes).

const BUDGET_MS = 10_000;
const ENGINES = 2;
const ORDINARY_ACCOUNTS = 6;
const POISON_ACCOUNTS = 2;
const POISON_SCANS_PER_ACCOUNT = 3;
/**
 * A fresh engine process's start and its first (cold) analysis, beyond what a warm one takes: about 3-5 s on a busy
 * two-core machine (fork, runtime, models, then the first analysis's own warm-up); twice that here, for a CI machine
 * running the other test lane beside this one.
 */
const ENGINE_START_MS = 10_000;

/**
 * The floor under the 2x bound, in ms past the quiet p95. An analysis already on the engine cannot be interrupted (a
 * poison photo is known as one only when its budget runs out), so with as many poisoning accounts as engine slots
 * the ordinary scans queued right behind the first poison photos wait one analysis budget, then for the fresh
 * engine processes that replace the killed ones (ENGINE_START_MS, or as long as the quiet run's p95 where this
 * machine is slower: the quiet run too starts on engines that have not analysed anything yet). That is a one-off
 * cost per wave of new poison photos, whatever the number of poison scans; what the report describes (every poison
 * scan retried into the engine: 15 attempts and 13 restarts for six scans) costs a budget and a restart per attempt
 * and fails this bound several times over.
 */
const allowanceMs = (quietP95: number) => BUDGET_MS + Math.max(ENGINE_START_MS, quietP95);

/** The engine processes this process forked (the embedded stack's inference thread forks them). */
function engineProcesses(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes('engine-process'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** Nearest-rank percentile. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Another poison photo: the same glyph-dense face with one background pixel changed (other bytes, other hash). */
async function poisonVariant(poison: Buffer, variant: number): Promise<Buffer> {
  if (variant === 0) return poison;
  const { data, info } = await sharp(poison).raw().toBuffer({ resolveWithObject: true });
  data[variant * info.channels] = (data[variant * info.channels]! + 1) % 256;
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).png().toBuffer();
}

describe('a flood of poison photos from two free accounts', () => {
  let stack: Stack;
  let sql: Sql;
  beforeAll(async () => {
    stack = await startStack('embedded', {
      INFERENCE_ANALYSIS_BUDGET_MS: String(BUDGET_MS),
      INFERENCE_CONCURRENCY: String(ENGINES),
      INFERENCE_WARM_PROCESSES: String(ENGINES),
      RATE_LIMIT_PER_KEY_PER_MINUTE: '100000',
    });
    sql = openSql(stack.database);
  }, 180_000);
  afterAll(async () => {
    await sql?.close();
    await stack?.stop();
  });

  let ip = 0;
  const register = async (name: string) => {
    const r = await stack.call('POST', '/v1/agents', { body: { name, contactEmail: 'flood@example.com' }, ip: `198.51.100.${130 + ip++}` });
    expect(r.status).toBe(201);
    return { Authorization: `Bearer ${String(r.json.apiKey)}` };
  };
  const submit = async (auth: Record<string, string>, front: Uint8Array) => {
    const form = new FormData();
    const png = front[0] === 0x89;
    form.append('modules', 'identify');
    form.append('front', new Blob([front], { type: png ? 'image/png' : 'image/jpeg' }), png ? 'front.png' : 'front.jpg');
    const r = await stack.call('POST', '/v1/scans', { form, headers: auth });
    expect(r.status).toBe(202);
    return Number(r.json.id);
  };
  /** Submits a scan and polls it until it is done: its status, error and time from submit to done. */
  const scan = async (auth: Record<string, string>, front: Uint8Array, timeoutMs = 150_000) => {
    const submitted = Date.now();
    const id = await submit(auth, front);
    for (;;) {
      const r = await stack.call('GET', `/v1/scans/${id}`, { headers: auth });
      expect(r.status).toBe(200);
      const status = String(r.json.status);
      if (status === 'completed' || status === 'failed') return { id, status, error: r.json.error, ms: Date.now() - submitted };
      if (Date.now() - submitted > timeoutMs) throw new Error(`scan ${id} is still ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const credits = async (auth: Record<string, string>) => (await stack.call('GET', '/v1/subscriptions/me', { headers: auth })).json.prepaidCredits;

  it("keeps other accounts' p95 within 2x of a quiet run; every poison fails, refunded, each photo on the engine at most once", async () => {
    const ordinary = await Promise.all(
      Array.from({ length: ORDINARY_ACCOUNTS }, async (_, i) => ({
        auth: await register(`ordinary ${i}`),
        photo: (await generateSample(1_000_200 + i, { photo: { megapixels: 1 } })).frontJpeg,
      })),
    );
    const ordinaryRun = () => Promise.all(ordinary.map(({ auth, photo }) => scan(auth, photo)));

    // Quiet run: the ordinary scans alone.
    const quiet = await ordinaryRun();
    expect(quiet.map((s) => s.status)).toEqual(ordinary.map(() => 'completed'));
    const quietP95 = percentile(quiet.map((s) => s.ms), 95);

    // Flood run: the poison scans first (interleaved between the two accounts), the same ordinary scans right behind.
    const glyphDense = await glyphDensePhoto();
    const poisoners = await Promise.all(
      Array.from({ length: POISON_ACCOUNTS }, async (_, i) => ({ auth: await register(`poison ${i}`), photo: await poisonVariant(glyphDense, i) })),
    );
    const enginesBefore = engineProcesses();
    expect(enginesBefore).toHaveLength(ENGINES);
    const seen = new Set(enginesBefore);
    const watch = setInterval(() => engineProcesses().forEach((pid) => seen.add(pid)), 250);
    const poisonRuns: Promise<Awaited<ReturnType<typeof scan>>>[] = [];
    for (let round = 0; round < POISON_SCANS_PER_ACCOUNT; round++) {
      for (const { auth, photo } of poisoners) {
        poisonRuns.push(scan(auth, photo));
        await new Promise((resolve) => setTimeout(resolve, 50)); // submitted in this order
      }
    }
    const flood = await ordinaryRun();
    const poisoned = await Promise.all(poisonRuns);
    clearInterval(watch);
    const enginesAfter = engineProcesses();
    // Every engine process that ended during the flood was killed past its budget: one engine attempt each.
    const engineAttempts = [...seen].filter((pid) => !enginesAfter.includes(pid)).length;
    const floodP95 = percentile(flood.map((s) => s.ms), 95);

    console.log(
      `poison flood: quiet p95 ${quietP95} ms, flood p95 ${floodP95} ms, ratio ${(floodP95 / quietP95).toFixed(2)} ` +
        `(bound ${Math.max(2 * quietP95, quietP95 + allowanceMs(quietP95))} ms); ordinary scans ${quiet.length} + ${flood.length} ` +
        `[quiet ${quiet.map((s) => s.ms).join(', ')}; flood ${flood.map((s) => s.ms).join(', ')}]; ` +
        `poison scans ${poisoned.length} (${poisoners.length} distinct photos, failed in ${poisoned.map((s) => s.ms).join(', ')} ms); ` +
        `engine attempts (processes killed) ${engineAttempts}; budget ${BUDGET_MS} ms`,
    );

    expect(flood.map((s) => s.status)).toEqual(ordinary.map(() => 'completed'));
    for (const failed of poisoned) {
      expect(failed.status).toBe('failed');
      expect(String(failed.error)).toMatch(/credits were refunded/);
    }
    // Delivered once each: nothing was retried into the engine.
    const attempts = await sql.query<{ attempts: number }>(`SELECT attempts FROM scans.scans WHERE id IN (${poisoned.map((s) => s.id).join(', ')})`);
    expect(attempts.map((row) => row.attempts)).toEqual(poisoned.map(() => 1));
    // Refunded in full: each free account is back to its 3 credits.
    for (const { auth } of poisoners) {
      let balance: unknown;
      for (let i = 0; i < 50 && balance !== 3; i++) {
        balance = await credits(auth);
        if (balance !== 3) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(balance).toBe(3);
    }
    expect(engineAttempts).toBeLessThanOrEqual(poisoners.length);
    expect(floodP95).toBeLessThanOrEqual(Math.max(2 * quietP95, quietP95 + allowanceMs(quietP95)));
  }, 300_000);
});
