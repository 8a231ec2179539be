import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { deleteRedisKeys, describeWithInfra, infraUrls, uniqueRedisPrefix } from '@cardlens/testing';
import { MemoryInFlightLock, RedisInFlightLock, type InFlightLock } from '../src/in-flight-lock';

/** The same behaviour from both adapters: one lease per account, growing fencing tokens, safe release. */
function lockContract(make: () => InFlightLock) {
  it('grants one lease per account at a time; other accounts are independent', async () => {
    const lock = make();
    const first = await lock.acquire(1, 10_000);
    expect(first).not.toBeNull();
    expect(await lock.acquire(1, 10_000)).toBeNull();
    const other = await lock.acquire(2, 10_000);
    expect(other).not.toBeNull();
    await first!.release();
    const again = await lock.acquire(1, 10_000);
    expect(again!.token).toBeGreaterThan(other!.token);
    await again!.release();
    await other!.release();
  });

  it('an expired lease is taken over with a larger token, and the old holder cannot release the new lock', async () => {
    const lock = make();
    const stale = await lock.acquire(3, 50);
    await new Promise((resolve) => setTimeout(resolve, 120));
    const fresh = await lock.acquire(3, 10_000);
    expect(fresh!.token).toBeGreaterThan(stale!.token);
    await stale!.release();
    expect(await lock.acquire(3, 10_000)).toBeNull();
    await fresh!.release();
    expect(await lock.acquire(3, 10_000)).not.toBeNull();
  });

  it('tokens keep growing above a floor (after a restart, or a Redis that lost its counter)', async () => {
    const lock = make();
    await lock.raiseTokensAbove(1_000_000n);
    const lease = await lock.acquire(4, 10_000);
    expect(lease!.token).toBeGreaterThan(1_000_000n);
    await lock.raiseTokensAbove(5n);
    await lease!.release();
    expect((await lock.acquire(4, 10_000))!.token).toBeGreaterThan(lease!.token);
  });

  it('of 20 concurrent attempts for one account exactly one wins', async () => {
    const lock = make();
    const leases = await Promise.all(Array.from({ length: 20 }, () => lock.acquire(5, 10_000)));
    expect(leases.filter((l) => l !== null)).toHaveLength(1);
  });
}

describe('in-flight lock in memory (embedded mode)', () => lockContract(() => new MemoryInFlightLock()));

describeWithInfra('redis', 'in-flight lock in Redis', () => {
  let prefix: string;
  const clients: Redis[] = [];
  beforeAll(() => {
    prefix = uniqueRedisPrefix('grading-lock');
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await deleteRedisKeys(prefix);
  });
  lockContract(() => {
    const redis = new Redis(infraUrls().redisUrl, { maxRetriesPerRequest: 1 });
    clients.push(redis);
    // A fresh key space per test, so the tests' accounts do not meet.
    return new RedisInFlightLock(redis, `${prefix}:${clients.length}`);
  });

  it('a Redis that cannot be reached refuses the grade with service_unavailable', async () => {
    const redis = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true });
    clients.push(redis);
    await expect(new RedisInFlightLock(redis, prefix).acquire(1, 1000)).rejects.toMatchObject({ code: 'service_unavailable' });
  });
});
