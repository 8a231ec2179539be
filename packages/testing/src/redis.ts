import { Redis } from 'ioredis';
import { infraUrls } from './env';
import { randomSuffix, sanitizeLabel } from './ids';

/** A key prefix no other test run uses: `t:<random>:` or `t:<label>:<random>:`. */
export function uniqueRedisPrefix(label?: string): string {
  const clean = label ? sanitizeLabel(label) : '';
  return `t:${clean ? `${clean}:` : ''}${randomSuffix()}:`;
}

const escapeGlob = (text: string): string => text.replace(/[*?[\]\\^]/g, (c) => `\\${c}`);

/** Deletes every key starting with prefix (SCAN + UNLINK); returns how many were deleted. */
export async function deleteRedisKeys(prefix: string, redisUrl = infraUrls().redisUrl): Promise<number> {
  if (prefix.length === 0) throw new Error('deleteRedisKeys needs a non-empty prefix');
  const client = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
    let deleted = 0;
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${escapeGlob(prefix)}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) deleted += await client.unlink(...keys);
    } while (cursor !== '0');
    return deleted;
  } finally {
    if (client.status !== 'end') client.disconnect();
  }
}
