import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { generateSample } from '@cardlens/card-synth';
import { describeWithInfra } from '@cardlens/testing';
import { PrivateKafka } from './private-kafka';
import { openSql, type Sql } from './sql';
import { startStack, type ApiResponse, type Stack } from './stack';

// Kafka stopped mid-burst and started again without its data (a broker rebuilt: topics and queued jobs gone),
// against the whole system on Postgres and Redis with a broker of the test's own. Every scan request is sent
// twice with one Idempotency-Key (the duplicate while the first may still be waiting on the bus). What must
// hold: no internal_error for anyone (scans hold no database connection while waiting on the bus); a key answers 202 only
// for a job the bus took, so no 202 is followed by a 404 or a refund; every accepted scan ends completed (jobs
// lost with the broker are queued again by the sweep; the first publish after the rebuild creates the topic
// again) and none is left queued; a request refused with enqueue_failed costs nothing.

const QUEUED_TIMEOUT_SECONDS = 12;
const TRIAL = 60;
const AGENTS = 4;
const QUEUE_EXPIRED = /waited in the queue too long/;

describeWithInfra(['postgres', 'redis', 'kafka'], 'Kafka stopped and rebuilt mid-burst', () => {
  const kafka = new PrivateKafka(19292);
  let stack: Stack;
  let sql: Sql;

  beforeAll(async () => {
    await kafka.start();
    stack = await startStack(
      'infra',
      {
        ENQUEUE_TIMEOUT_MS: '3000',
        SCAN_SETTLE_INTERVAL_MS: '1000',
        SCAN_QUEUED_TIMEOUT_SECONDS: String(QUEUED_TIMEOUT_SECONDS),
        SCAN_QUEUE_REQUEUES: '3',
        RATE_LIMIT_PER_KEY_PER_MINUTE: '100000',
        PRICING_JSON: JSON.stringify({ trial: { anonymous: 1, registered: TRIAL } }),
      },
      { kafkaBrokers: [kafka.address] },
    );
    sql = openSql(stack.database);
  }, 240_000);
  afterAll(async () => {
    await sql?.close();
    await stack?.stop();
    await kafka.dispose();
  });

  it('no internal_error, no 202 that later 404s or is refunded, every accepted scan completes, nothing left queued, refused requests cost nothing', async () => {
    const photo = await generateSample(1_000_020, { photo: { megapixels: 1 } });
    const agents: { auth: Record<string, string> }[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const r = await stack.call('POST', '/v1/agents', { body: { name: 'outage bot', contactEmail: 'outage@example.com' }, ip: `198.51.100.${60 + i}` });
      expect(r.status).toBe(201);
      agents.push({ auth: { Authorization: `Bearer ${String(r.json.apiKey)}` } });
    }
    const form = () => {
      const f = new FormData();
      f.append('modules', 'identify');
      f.append('front', new Blob([photo.frontJpeg], { type: 'image/jpeg' }), 'front.jpg');
      return f;
    };

    interface Sent { agent: number; key: string; duplicate: boolean; phase: string; response: ApiResponse }
    const sent: Sent[] = [];
    const others: number[] = [];
    let phase = 'up';
    let bursting = true;
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    const submit = async (agent: number, key: string, duplicate: boolean) => {
      const at = phase;
      const response = await stack.call('POST', '/v1/scans', { form: form(), headers: { ...agents[agent]!.auth, 'Idempotency-Key': key } });
      sent.push({ agent, key, duplicate, phase: at, response });
    };
    const burst = (async () => {
      const inFlight: Promise<void>[] = [];
      for (let i = 0; bursting; i++) {
        const agent = i % AGENTS;
        const key = `outage-${i}`;
        inFlight.push(submit(agent, key, false), wait(1200).then(() => submit(agent, key, true)));
        await wait(700);
      }
      await Promise.all(inFlight);
    })();
    // Unrelated requests all along: they must never see a 500.
    const bystander = (async () => {
      while (bursting) {
        others.push((await stack.call('GET', '/v1/agents/me', { headers: agents[0]!.auth })).status);
        await wait(250);
      }
    })();

    await wait(4000);
    phase = 'down';
    await kafka.stop();
    await wait(8000);
    phase = 'restarting';
    await kafka.start();
    phase = 'rebuilt';
    await wait(8000);
    bursting = false;
    await Promise.all([burst, bystander]);

    // Only acceptances, enqueue refusals (the spec's 500 enqueue_failed, credits refunded) and idempotency
    // conflicts; no internal_error for anyone, and the bystander's requests all succeed.
    const refusedToQueue = (s: Sent) => s.response.status === 500 && s.response.json.code === 'enqueue_failed';
    const unexpected = sent.filter((s) => s.response.status !== 202 && !refusedToQueue(s) && !(s.response.status === 409 && s.response.json.code === 'idempotency_conflict'));
    expect(unexpected.map((s) => ({ phase: s.phase, duplicate: s.duplicate, ...s.response.json }))).toEqual([]);
    expect(others.filter((status) => status !== 200)).toEqual([]);
    // The outage was felt (refusals while down) and got over (acceptances after the rebuild).
    expect(sent.some(refusedToQueue)).toBe(true);
    expect(sent.some((s) => s.phase === 'rebuilt' && s.response.status === 202 && !s.duplicate)).toBe(true);

    // Per key: a 202 (first or duplicate) names one scan, and a key whose request was refused never got a 202.
    const byKey = new Map<string, Sent[]>();
    for (const s of sent) byKey.set(s.key, [...(byKey.get(s.key) ?? []), s]);
    const accepted = new Map<number, { agent: number; key: string }>();
    for (const [key, both] of byKey) {
      const ids = new Set(both.filter((s) => s.response.status === 202).map((s) => Number(s.response.json.id)));
      expect(ids.size).toBeLessThanOrEqual(1);
      const refused = both.some(refusedToQueue);
      if (refused) expect(ids.size).toBe(0);
      for (const id of ids) accepted.set(id, { agent: both[0]!.agent, key });
    }

    // Every accepted scan ends completed: none 404s, none stays queued, none is refunded.
    const deadline = Date.now() + 180_000;
    const ended = new Map<number, Record<string, unknown>>();
    while (ended.size < accepted.size) {
      for (const [id, { agent }] of accepted) {
        if (ended.has(id)) continue;
        const r = await stack.call('GET', `/v1/scans/${id}`, { headers: agents[agent]!.auth });
        expect(r.status).toBe(200);
        if (r.json.status === 'completed' || r.json.status === 'failed') ended.set(id, r.json);
      }
      if (ended.size < accepted.size) {
        if (Date.now() > deadline) throw new Error(`scans still not done: ${[...accepted.keys()].filter((id) => !ended.has(id)).join(', ')}`);
        await wait(500);
      }
    }
    const failed = [...ended.entries()].filter(([, body]) => body.status !== 'completed');
    expect(failed.map(([id, body]) => ({ id, error: String(body.error ?? '') })).filter((f) => !QUEUE_EXPIRED.test(f.error))).toEqual([]);
    expect(failed).toEqual([]);
    const left = await sql.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM scans.scans WHERE status IN ('pending', 'queued', 'processing') OR (status = 'abandoned' AND settled_at IS NULL) GROUP BY status`,
    );
    expect(left).toEqual([]);

    // The ledger: each agent paid for its completed scans and nothing else (every refused request was refunded).
    const cost = Number(sent.find((s) => s.response.status === 202 && !s.duplicate)!.response.json.creditsCharged);
    expect(cost).toBeGreaterThan(0);
    for (let agent = 0; agent < AGENTS; agent++) {
      const completed = [...accepted.values()].filter((a) => a.agent === agent).length;
      const me = await stack.call('GET', '/v1/agents/me', { headers: agents[agent]!.auth });
      expect(me.json.credits).toBe(TRIAL - completed * cost);
    }
    const perPhase = ['up', 'down', 'restarting', 'rebuilt'].map((p) => {
      const first = sent.filter((s) => s.phase === p && !s.duplicate);
      return `${p}: ${first.filter((s) => s.response.status === 202).length}/${first.length} accepted`;
    });
    console.log(
      `kafka outage: ${byKey.size} requests (each sent twice; ${perPhase.join(', ')}); ${accepted.size} accepted and completed; ` +
        `${sent.filter(refusedToQueue).length} enqueue_failed, ${sent.filter((s) => s.response.status === 409).length} idempotency_conflict; ` +
        `${others.length} bystander requests, all 200`,
    );
  }, 420_000);
});
