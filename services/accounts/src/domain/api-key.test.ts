import { describe, expect, it } from '@jest/globals';
import { API_KEY_PREFIX, generateApiKey, hashApiKey, hashesEqual, isWellFormedApiKey } from './api-key';

describe('API keys', () => {
  it('are a fixed 4-character prefix ending in "_" and 40 base62 characters', () => {
    expect(API_KEY_PREFIX).toHaveLength(4);
    expect(API_KEY_PREFIX.endsWith('_')).toBe(true);
    const keys = Array.from({ length: 200 }, () => generateApiKey());
    for (const key of keys) {
      expect(key.plaintext).toMatch(/^clk_[A-Za-z0-9]{40}$/);
      expect(isWellFormedApiKey(key.plaintext)).toBe(true);
      expect(key.displayPrefix).toBe(key.plaintext.slice(0, 12));
      expect(hashesEqual(key.hash, hashApiKey(key.plaintext))).toBe(true);
    }
    expect(new Set(keys.map((k) => k.plaintext)).size).toBe(keys.length);
  });

  it('uses the whole alphabet (no modulo bias toward a subset)', () => {
    const seen = new Set(Array.from({ length: 300 }, () => generateApiKey().plaintext.slice(4)).join(''));
    expect(seen.size).toBe(62);
  });

  it('rejects malformed candidates before any lookup', () => {
    for (const bad of ['', 'clk_', 'clk_short', `xyz_${'a'.repeat(40)}`, `clk_${'a'.repeat(39)}`, `clk_${'a'.repeat(41)}`, `clk_${'a'.repeat(39)}!`]) {
      expect(isWellFormedApiKey(bad)).toBe(false);
    }
  });

  it('stores only a hash that differs from key to key', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a.hash).toHaveLength(32);
    expect(hashesEqual(a.hash, b.hash)).toBe(false);
    expect(Buffer.from(a.hash).toString('utf8')).not.toContain(a.plaintext.slice(4, 12));
  });
});
