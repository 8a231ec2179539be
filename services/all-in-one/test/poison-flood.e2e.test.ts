import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { generateSample, glyphDensePhoto } from '@cardlens/card-synth';
import { openSql, type Sql } from './sql';
import { startStack, type Stack } from './stack';

// Issue 49's flood (point 1, poison isolation and fairness), through the whole embedded system: first a quiet run (a
// few ordinary accounts scan ordinary cards; each scan's time from submit to completed is measured), then the same
// scans again while two free accounts flood the engine with the worst photos we know (three scans each of its own
// glyph-packed face, six in all, as in the report, where six poison photos caused 15 engine attempts and 13 engine
// restarts and delayed everyone else's scans to 225-301 s). The ordinary scans' p95 must stay within 2x of the quiet
// run's.
//
// What makes that hold: the identification OCR's work is bounded per analysis (packages/vision/src/evidence/ocrWork.ts),
// so such a face is analysed in about two seconds, read only in part, instead of holding an engine process for its
// whole budget (10 s and more); and the scan worker's turns go first to accounts that have had the least engine time
// since the engine was last idle (services/scans/src/domain/engine-turns.ts), so the flood's later scans wait behind
// everyone else's. No
// engine process is killed, each scan is delivered once, and the free accounts pay for the scans they got.
//
// Config knobs (so the test takes about a minute here): the analysis budget is 10 s instead of 20 s (a face that got
// past the OCR allowance would show as killed engine processes), and two engine processes, both kept warm
// (INFERENCE_CONCURRENCY / INFERENCE_WARM_PROCESSES: the same two slots on any CI machine, and no on-demand start or
// idle stop to blur the count of killed engine processes).

const BUDGET_MS = 10_000;
const ENGINES = 2;
const ORDINARY_ACCOUNTS = 6;
const POISON_ACCOUNTS = 2;
const POISON_SCANS_PER_ACCOUNT = 3;

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

/** Another glyph-packed photo: the same face with one background pixel changed (other bytes, other hash). */
async function poisonVariant(poison: Buffer, variant: number): Promise<Buffer> {
  if (variant === 0) return poison;
  const { data, info } = await sharp(poison).raw().toBuffer({ resolveWithObject: true });
  data[variant * info.channels] = (data[variant * info.channels]! + 1) % 256;
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).png().toBuffer();
}

describe('a flood of glyph-packed photos from two free accounts', () => {
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

  it("keeps other accounts' p95 within 2x of a quiet run; the flood's photos are analysed within the OCR allowance, no engine process killed", async () => {
    const ordinary = await Promise.all(
      Array.from({ length: ORDINARY_ACCOUNTS }, async (_, i) => ({
        auth: await register(`ordinary ${i}`),
        photo: (await generateSample(1_000_200 + i, { photo: { megapixels: 1 } })).frontJpeg,
      })),
    );
    const ordinaryRun = () => Promise.all(ordinary.map(({ auth, photo }) => scan(auth, photo)));

    // A round first, not measured, of other cards (each account's 3 trial credits pay for this round and the two
    // measured ones): neither run then pays for a fresh stack's first analyses and lookups, so the quiet run is as
    // quick as it will be.
    const warmUp = await Promise.all(ordinary.map(async ({ auth }, i) => scan(auth, (await generateSample(1_000_300 + i, { photo: { megapixels: 1 } })).frontJpeg)));
    expect(warmUp.map((s) => s.status)).toEqual(ordinary.map(() => 'completed'));

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
      `poison flood: quiet p95 ${quietP95} ms, flood p95 ${floodP95} ms, ratio ${(floodP95 / quietP95).toFixed(2)} (bound 2x); ` +
        `ordinary scans ${quiet.length} + ${flood.length} [quiet ${quiet.map((s) => s.ms).join(', ')}; flood ${flood.map((s) => s.ms).join(', ')}]; ` +
        `glyph-packed scans ${poisoned.length} (${poisoners.length} distinct photos, ${poisoned.map((s) => `${s.status} in ${s.ms} ms`).join(', ')}); ` +
        `engine processes killed ${engineAttempts}; budget ${BUDGET_MS} ms`,
    );

    expect(flood.map((s) => s.status)).toEqual(ordinary.map(() => 'completed'));
    // Analysed within the OCR allowance, long before the budget: no engine process was killed.
    expect(poisoned.map((s) => s.status)).toEqual(poisoned.map(() => 'completed'));
    expect(engineAttempts).toBe(0);
    // Delivered once each.
    const attempts = await sql.query<{ attempts: number }>(`SELECT attempts FROM scans.scans WHERE id IN (${poisoned.map((s) => s.id).join(', ')})`);
    expect(attempts.map((row) => row.attempts)).toEqual(poisoned.map(() => 1));
    // Charged once per scan: each free account has spent its 3 trial credits.
    for (const { auth } of poisoners) expect(await credits(auth)).toBe(3 - POISON_SCANS_PER_ACCOUNT);
    expect(floodP95).toBeLessThanOrEqual(2 * quietP95);
  }, 300_000);
});
