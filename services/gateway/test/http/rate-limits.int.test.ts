import { afterEach, describe, expect, it } from '@jest/globals';
import type { Redis } from 'ioredis';
import { isAppError } from '@cardlens/errors';
import { createLogger } from '@cardlens/telemetry';
import { describeWithInfra, infraUrls, uniqueRedisPrefix, deleteRedisKeys } from '@cardlens/testing';
import { consumeOrThrow, createLimitsRedis, createRateLimiters } from '../../src/http/rate-limits';

// Rate limits on Redis, and what happens when Redis does not answer: the limits are still enforced (per
// replica, in memory), the switch is logged once, and store() says so (GET /readyz shows rateLimits: degraded).

const settings = { perKeyPerMinute: 2, registrationAttemptsPerHour: 5, newAgentsPerDay: 3, openPerMinute: 120 };
const clients: Redis[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.disconnect();
});
const until = async (check: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
const rejected = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return isAppError(error) ? error.code : 'other';
  }
};

describe('rate limits when Redis does not answer', () => {
  it('fall back to per-replica memory: still enforced, logged once, reported as degraded', async () => {
    const lines: string[] = [];
    const logger = createLogger('rate-limit-test', { write: (line: string) => void lines.push(line) });
    // Nothing listens on port 1: every connection attempt fails.
    const redis = createLimitsRedis('redis://127.0.0.1:1', { retryStrategy: () => 50 });
    clients.push(redis);
    const limiters = createRateLimiters(settings, redis, uniqueRedisPrefix('rl-down'), logger);
    await until(() => limiters.store() === 'degraded');
    await new Promise((resolve) => setTimeout(resolve, 300)); // several failed reconnects
    expect(await rejected(consumeOrThrow(limiters.perKey, 'agent-1'))).toBeUndefined();
    expect(await rejected(consumeOrThrow(limiters.perKey, 'agent-1'))).toBeUndefined();
    expect(await rejected(consumeOrThrow(limiters.perKey, 'agent-1'))).toBe('rate_limited');
    expect(lines.filter((l) => l.includes('rate limits fall back to per-replica memory'))).toHaveLength(1);
    expect(lines.join('\n')).not.toContain('redis://');
  });

  it('without Redis (the embedded mode) the limits are in memory by design: ok', () => {
    expect(createRateLimiters(settings, undefined).store()).toBe('ok');
  });
});

describeWithInfra('redis', 'rate limits on Redis', () => {
  const prefix = uniqueRedisPrefix('rl');
  afterEach(async () => {
    await deleteRedisKeys(prefix);
  });

  it('are shared (two replicas draw on one count) and reported ok', async () => {
    const a = createLimitsRedis(infraUrls().redisUrl);
    const b = createLimitsRedis(infraUrls().redisUrl);
    clients.push(a, b);
    const one = createRateLimiters(settings, a, prefix);
    const two = createRateLimiters(settings, b, prefix);
    await until(() => one.store() === 'ok' && two.store() === 'ok');
    expect(await rejected(consumeOrThrow(one.perKey, 'agent-2'))).toBeUndefined();
    expect(await rejected(consumeOrThrow(two.perKey, 'agent-2'))).toBeUndefined();
    expect(await rejected(consumeOrThrow(one.perKey, 'agent-2'))).toBe('rate_limited');
  });

  it('count exactly under concurrency: 60 requests at once from two replicas, limit 25, exactly 25 pass', async () => {
    const a = createLimitsRedis(infraUrls().redisUrl);
    const b = createLimitsRedis(infraUrls().redisUrl);
    clients.push(a, b);
    const many = { ...settings, perKeyPerMinute: 25 };
    const one = createRateLimiters(many, a, prefix);
    const two = createRateLimiters(many, b, prefix);
    await until(() => one.store() === 'ok' && two.store() === 'ok');
    // Issued in one turn of the event loop, so each replica's commands go to Redis as one pipeline.
    const outcomes = await Promise.all(Array.from({ length: 60 }, (_, i) => rejected(consumeOrThrow((i % 2 ? one : two).perKey, 'agent-3'))));
    expect(outcomes.filter((o) => o === undefined)).toHaveLength(25);
    expect(outcomes.filter((o) => o === 'rate_limited')).toHaveLength(35);
  });
});
