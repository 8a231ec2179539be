import type { Redis } from 'ioredis';
import { AppError } from '@cardlens/errors';

/**
 * The one-grade-in-flight-per-account lock. A lease carries a fencing token that only ever grows, so a holder
 * whose lease expired (it overran the budget) can be told apart from the newer holder that took the lock after it:
 * the grade use case records the newest token per account in Postgres and refuses to start or complete a grade
 * under an older one. Two adapters: Redis (every replica shares it) and process memory (the embedded mode).
 */
export interface InFlightLock {
  /** A lease for the account, or null when another grade of the account holds one. */
  acquire(agentId: number, ttlMs: number): Promise<Lease | null>;
  /** Makes every later token larger than `floor` (tokens must keep growing across restarts and a flushed Redis). */
  raiseTokensAbove(floor: bigint): Promise<void>;
  close(): Promise<void>;
}

export interface Lease {
  token: bigint;
  /** Releases the lock if this lease still holds it (a newer holder's lock is left alone). */
  release(): Promise<void>;
}

export class MemoryInFlightLock implements InFlightLock {
  private lastToken = 0n;
  private readonly held = new Map<number, { token: bigint; expiresAt: number }>();

  async acquire(agentId: number, ttlMs: number): Promise<Lease | null> {
    const current = this.held.get(agentId);
    if (current && current.expiresAt > Date.now()) return null;
    const token = ++this.lastToken;
    this.held.set(agentId, { token, expiresAt: Date.now() + ttlMs });
    return {
      token,
      release: async () => {
        if (this.held.get(agentId)?.token === token) this.held.delete(agentId);
      },
    };
  }

  async raiseTokensAbove(floor: bigint): Promise<void> {
    if (this.lastToken < floor) this.lastToken = floor;
  }

  async close(): Promise<void> {}
}

// KEYS[1] the token counter, KEYS[2] the account's lock; ARGV[1] the lease in ms. One script, so the check, the
// new token and the lock are one atomic step (the keys share a hash tag: one Redis Cluster slot).
const ACQUIRE = `
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local token = redis.call('INCR', KEYS[1])
redis.call('SET', KEYS[2], token, 'PX', ARGV[1])
return token`;
// KEYS[1] the lock; ARGV[1] the lease's token: delete only our own lock.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;
// KEYS[1] the token counter; ARGV[1] the floor.
const RAISE = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
return 1`;

export class RedisInFlightLock implements InFlightLock {
  private readonly tokenKey: string;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    this.tokenKey = `${prefix}:{in-flight}:token`;
  }

  private lockKey(agentId: number): string {
    return `${this.prefix}:{in-flight}:agent:${agentId}`;
  }

  async acquire(agentId: number, ttlMs: number): Promise<Lease | null> {
    const key = this.lockKey(agentId);
    const result = await this.unavailableOnFailure(() => this.redis.eval(ACQUIRE, 2, this.tokenKey, key, String(ttlMs)));
    const token = BigInt(result as number);
    if (token === 0n) return null;
    return {
      token,
      release: async () => {
        // A failed release only leaves the lock to expire at the end of its lease.
        await this.redis.eval(RELEASE, 1, key, token.toString()).catch(() => undefined);
      },
    };
  }

  async raiseTokensAbove(floor: bigint): Promise<void> {
    await this.unavailableOnFailure(() => this.redis.eval(RAISE, 1, this.tokenKey, floor.toString()));
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }

  /** Without the lock the one-in-flight rule cannot be kept, so a Redis failure refuses the grade (nothing is reserved yet). */
  private async unavailableOnFailure<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw new AppError('service_unavailable', 'Grading is temporarily unavailable. Retry shortly with the same Idempotency-Key.', { cause: error, retryAfterSeconds: 2 });
    }
  }
}
