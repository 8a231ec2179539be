import { randomBytes } from 'node:crypto';

/** Lower-case hex, `bytes * 2` characters; enough entropy that parallel runs never collide. */
export function randomSuffix(bytes = 5): string {
  return randomBytes(bytes).toString('hex');
}

/** Keeps [a-z0-9-] of a label (lower-cased), so it is safe in database, topic and key names. */
export function sanitizeLabel(label: string, maxLength = 24): string {
  return label
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxLength);
}
