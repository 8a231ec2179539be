// Redis unreachable for the whole run, everything else real (Postgres, Kafka): commercial grading keeps working
// (its one-grade-in-flight leases live in the grading schema) and keeps its rule, the rate limits fall back to each
// replica's memory, and /readyz says exactly that: ready, with rateLimits degraded.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { generateSample } from '@cardlens/card-synth';
import { describeWithInfra } from '@cardlens/testing';
import { startStack, type Stack } from './stack';

type Headers = Record<string, string>;
// Nothing listens on port 1: every Redis command fails at once.
const UNREACHABLE_REDIS = 'redis://127.0.0.1:1';

describeWithInfra(['postgres', 'kafka'], 'Redis down (Postgres and Kafka up)', () => {
  let stack: Stack;
  let photos: { front: Buffer; back: Buffer };
  let keys = 0;

  beforeAll(async () => {
    const sample = await generateSample(2_000_031, { photo: { megapixels: 2 } });
    photos = { front: Buffer.from(sample.frontJpeg), back: Buffer.from(sample.backJpeg) };
    stack = await startStack('infra', { RATE_LIMIT_PER_KEY_PER_MINUTE: '100000' }, { redisUrl: UNREACHABLE_REDIS });
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  const grade = (headers: Headers) => {
    const form = new FormData();
    form.append('front', new Blob([new Uint8Array(photos.front)], { type: 'image/jpeg' }), 'front.jpg');
    form.append('back', new Blob([new Uint8Array(photos.back)], { type: 'image/jpeg' }), 'back.jpg');
    return stack.call('POST', '/v1/grades', { headers: { ...headers, 'Idempotency-Key': `redis-down-${++keys}` }, form });
  };

  it('grades complete and one stays in flight per account; /readyz is ready with rate limits degraded', async () => {
    const agent = await stack.call('POST', '/v1/agents', { body: { name: 'redis outage business', contactEmail: 'owner@example.com' }, ip: '203.0.113.201' });
    expect(agent.status).toBe(201);
    const headers = { 'X-Api-Key': String(agent.json.apiKey) };
    const link = await stack.call('POST', '/v1/subscriptions/checkout', { headers, body: { plan: 'grading_5000' } });
    expect(link.status).toBe(200);
    const paid = await fetch(`${stack.baseUrl}${new URL(String(link.json.checkoutUrl)).pathname}/pay`, { method: 'POST', body: new URLSearchParams({ card: '4242424242424242' }), redirect: 'manual' });
    expect(paid.status).toBe(303);
    for (let i = 0; i < 150; i++) {
      if ((await stack.call('GET', '/v1/subscriptions/me', { headers })).json.status === 'trialing') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const graded = await grade(headers);
    expect(graded.status).toBe(200);
    expect(graded.json).toMatchObject({ billingSource: 'trial' });
    // Two at once: the rule still holds without Redis (one 200, one 429 grade_in_flight), as before the outage.
    const both = await Promise.all([grade(headers), grade(headers)]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 429]);
    expect(both.find((r) => r.status === 429)!.json.code).toBe('grade_in_flight');

    const ready = await fetch(`${stack.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', checks: { accounts: 'ok', billing: 'ok', scans: 'ok', grading: 'ok', rateLimits: 'degraded' } });
  }, 180_000);
});
