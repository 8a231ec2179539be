import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/**
 * Remembers which agent an API key resolved to, for a short time, so a burst of requests costs accounts one
 * lookup per key rather than one each (concurrent misses for one key share a single lookup). Entries are keyed
 * by the key's SHA-256, never the key itself. Only successes are kept: an unknown, revoked or disabled key is
 * asked about every time, and a key revoked in accounts stops working here within `ttlMs`.
 */
export class ApiKeyCache<T extends object> {
  private readonly cache: LRUCache<string, T, string> | undefined;

  constructor(
    private readonly lookup: (apiKey: string) => Promise<T>,
    options: { ttlMs: number; maxEntries: number },
  ) {
    if (options.ttlMs > 0) {
      this.cache = new LRUCache<string, T, string>({
        max: options.maxEntries,
        ttl: options.ttlMs,
        // The key travels as the fetch context: the cache key is only its hash.
        fetchMethod: (_hash, _stale, { context }) => this.lookup(context),
      });
    }
  }

  async get(apiKey: string): Promise<T> {
    if (!this.cache) return this.lookup(apiKey);
    const hit = await this.cache.fetch(createHash('sha256').update(apiKey).digest('base64url'), { context: apiKey });
    if (hit === undefined) throw new Error('api key lookup returned nothing');
    return hit;
  }
}
