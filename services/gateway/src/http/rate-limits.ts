import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '@cardlens/telemetry';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { AppError } from '@cardlens/errors';

export interface RateLimitSettings {
  perKeyPerMinute: number;
  registrationAttemptsPerHour: number;
  newAgentsPerDay: number;
  openPerMinute: number;
}

export interface RateLimiters {
  perKey: NamedLimiter;
  registrationAttempts: NamedLimiter;
  newAgents: NamedLimiter;
  open: NamedLimiter;
  /**
   * `ok`: limits are shared (Redis answers, or the embedded mode's memory by design); `degraded`: Redis is not
   * answering and each replica enforces them alone (shown by /readyz, which stays ready).
   */
  store(): 'ok' | 'degraded';
}

export interface NamedLimiter {
  /** The value of X-RateLimit-Policy for responses this limiter admitted. */
  policy: string;
  /** The limit in the IETF RateLimit-Policy form: `"per-key";q=120;w=60`. */
  ietfPolicy: string;
  name: string;
  limiter: RateLimiterAbstract;
}

/** Where the IETF RateLimit headers of a request go (an express Response). */
export interface RateLimitHeaderSink {
  getHeader(name: string): unknown;
  setHeader(name: string, value: string): unknown;
}

/**
 * The gateway's Redis connection for the limits. Commands fail at once while Redis is away (no offline queue, so
 * the insurance limiter takes over instead of requests waiting), and concurrent requests' commands go out
 * together: auto-pipelining sends everything issued in one event-loop turn as one write, which multiplies the
 * throughput of the per-key limit that every authenticated request consumes (each command is still atomic, so
 * the counts are exactly as without it).
 */
export function createLimitsRedis(url: string, options: Partial<RedisOptions> = {}): Redis {
  return new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, enableAutoPipelining: true, ...options });
}

/**
 * Redis-backed limits shared by every gateway replica; in-memory in the embedded mode. If Redis fails, an
 * in-memory insurance limiter keeps enforcing per replica rather than failing open or closed; the switch and
 * the recovery are logged once each, and store() reports it.
 */
export function createRateLimiters(settings: RateLimitSettings, redis: Redis | undefined, keyPrefix = 'cl:rl', logger?: Logger): RateLimiters {
  let degraded = false;
  redis?.on('error', (error: Error) => {
    if (degraded) return;
    degraded = true;
    logger?.warn({ err: error }, 'redis is not answering; rate limits fall back to per-replica memory');
  });
  redis?.on('ready', () => {
    if (!degraded) return;
    degraded = false;
    logger?.info('redis answers again; rate limits are shared again');
  });
  const make = (name: string, points: number, duration: number): NamedLimiter => {
    const options = { keyPrefix: `${keyPrefix}:${name}`, points, duration };
    const limiter = redis
      ? new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: new RateLimiterMemory(options) })
      : new RateLimiterMemory(options);
    return { policy: `${name};limit=${points};window=${duration}s`, ietfPolicy: `"${name}";q=${points};w=${duration}`, name, limiter };
  };
  return {
    perKey: make('per-key', settings.perKeyPerMinute, 60),
    registrationAttempts: make('registration-attempts-per-ip', settings.registrationAttemptsPerHour, 3600),
    newAgents: make('new-agents-per-ip', settings.newAgentsPerDay, 86_400),
    open: make('open-per-ip', settings.openPerMinute, 60),
    store: () => (redis && (degraded || redis.status !== 'ready') ? 'degraded' : 'ok'),
  };
}

/**
 * Takes `points` (one per call the request carries; a REST request is one) or throws 429 rate_limited with the
 * seconds until a point is free again. With a sink, the
 * answer (success or 429) carries the IETF RateLimit-Policy and RateLimit headers
 * (draft-ietf-httpapi-ratelimit-headers): the quota and window, and the points left and seconds until the
 * window resets. A request checked against several limits lists each, in the order they were checked.
 */
export async function consumeOrThrow(named: NamedLimiter, key: string, headers?: RateLimitHeaderSink, points = 1): Promise<RateLimiterRes> {
  try {
    const admitted = await named.limiter.consume(key, points);
    if (headers) setRateLimitHeaders(headers, named, admitted);
    return admitted;
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      if (headers) setRateLimitHeaders(headers, named, rejection);
      throw new AppError('rate_limited', `Rate limit exceeded (${named.policy}). Retry after the time in Retry-After.`, {
        retryAfterSeconds: Math.ceil(rejection.msBeforeNext / 1000),
      });
    }
    throw rejection;
  }
}

/** Gives back a point taken for an attempt that did not count (e.g. a registration that failed). */
export async function giveBack(named: NamedLimiter, key: string): Promise<void> {
  await named.limiter.reward(key, 1);
}

function setRateLimitHeaders(headers: RateLimitHeaderSink, named: NamedLimiter, state: RateLimiterRes): void {
  const append = (name: string, item: string) => {
    const existing = headers.getHeader(name);
    headers.setHeader(name, typeof existing === 'string' && existing !== '' ? `${existing}, ${item}` : item);
  };
  append('RateLimit-Policy', named.ietfPolicy);
  append('RateLimit', `"${named.name}";r=${Math.max(0, state.remainingPoints)};t=${Math.max(0, Math.ceil(state.msBeforeNext / 1000))}`);
}
