import { describe, expect, it } from '@jest/globals';
import { AppError, isAppError } from '@cardlens/errors';
import { ApiKeyCache } from '../../src/api-key-cache';

// The gateway's API-key cache: one accounts lookup per key and TTL however many requests arrive at once, no
// memory of failures, and a key revoked in accounts refused again once its entry has expired.

const KEY = `clk_${'a'.repeat(40)}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A lookup with accounts' answers: the agent while the key is active, invalid_api_key once it is revoked. */
function accountsLookup() {
  const state = { calls: 0, revoked: false };
  const lookup = async (apiKey: string) => {
    state.calls++;
    await sleep(20);
    if (state.revoked || apiKey !== KEY) throw new AppError('invalid_api_key', 'The API key is not valid.');
    return { agentId: 7 };
  };
  return { state, lookup };
}

describe('ApiKeyCache', () => {
  it('200 concurrent requests with one key cost one lookup', async () => {
    const { state, lookup } = accountsLookup();
    const cache = new ApiKeyCache(lookup, { ttlMs: 10_000, maxEntries: 100 });
    const agents = await Promise.all(Array.from({ length: 200 }, () => cache.get(KEY)));
    expect(agents.every((a) => a.agentId === 7)).toBe(true);
    expect(state.calls).toBe(1);
  });

  it('honours a revocation once the entry expires', async () => {
    const { state, lookup } = accountsLookup();
    const cache = new ApiKeyCache(lookup, { ttlMs: 150, maxEntries: 100 });
    await expect(cache.get(KEY)).resolves.toEqual({ agentId: 7 });
    state.revoked = true;
    await sleep(200);
    const refused = await cache.get(KEY).catch((error: unknown) => error);
    expect(isAppError(refused) && refused.code).toBe('invalid_api_key');
    expect(state.calls).toBe(2);
  });

  it('never remembers a refused key: each attempt is asked again', async () => {
    const { state, lookup } = accountsLookup();
    const cache = new ApiKeyCache(lookup, { ttlMs: 10_000, maxEntries: 100 });
    for (let i = 0; i < 3; i++) await expect(cache.get(`clk_${'b'.repeat(40)}`)).rejects.toMatchObject({ code: 'invalid_api_key' });
    expect(state.calls).toBe(3);
  });

  it('with a TTL of 0 asks every time', async () => {
    const { state, lookup } = accountsLookup();
    const cache = new ApiKeyCache(lookup, { ttlMs: 0, maxEntries: 100 });
    await cache.get(KEY);
    await cache.get(KEY);
    expect(state.calls).toBe(2);
  });
});
