import { createHash } from 'node:crypto';
import { describe, it, expect } from '@jest/globals';
import { scansV1 } from '@cardlens/contracts';
import { AppError, type ErrorCode } from '@cardlens/errors';
import { parseIdempotencyKey, parseModules, parseScanId, requestFingerprint } from '../../src/http/scan-request';

const { IDENTIFY, GRADE, MARKET, FULL } = scansV1.Module;

function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected an AppError');
}

const expectCode = (fn: () => unknown, code: ErrorCode): AppError => {
  const error = errorOf(fn);
  expect(error.code).toBe(code);
  return error;
};

describe('parseModules', () => {
  it.each<[unknown, scansV1.Module[]]>([
    [['identify'], [IDENTIFY]],
    [['identify', 'grade'], [IDENTIFY, GRADE]],
    [['market', 'identify', 'grade'], [MARKET, IDENTIFY, GRADE]],
    [['full'], [FULL]],
    ['full', [FULL]],
    ['identify', [IDENTIFY]],
    ['identify,grade', [IDENTIFY, GRADE]],
    ['identify grade', [IDENTIFY, GRADE]],
    ['identify, grade ,market', [IDENTIFY, GRADE, MARKET]],
    ['  grade\tmarket\n', [GRADE, MARKET]],
    ['identify,,grade', [IDENTIFY, GRADE]],
  ])('accepts %j', (value, expected) => {
    expect(parseModules(value)).toEqual(expected);
  });

  it.each<unknown>([['deep'], 'deep', 'identify,deep', ['grade', 'deep', 'bogus'], ['full', 'deep'], 'DEEP', [' deep '], [7, 'deep']])(
    'refuses deep anywhere with deep_unsupported: %j',
    (value) => {
      expectCode(() => parseModules(value), 'deep_unsupported');
    },
  );

  it('says modules is required when it is missing', () => {
    for (const value of [undefined, null]) {
      expect(expectCode(() => parseModules(value), 'invalid_modules').detail).toMatch(/modules is required/);
    }
  });

  it.each<[string, unknown]>([
    ['empty array', []],
    ['empty string', ''],
    ['separators only', ' , ,'],
    ['unknown name', ['identify', 'value']],
    ['unknown name in a string', 'identify,valuation'],
    ['upper-case name', ['Identify']],
    ['duplicate', ['grade', 'grade']],
    ['duplicate in a string', 'grade grade'],
    ['full with another module', ['full', 'grade']],
    ['full with another module in a string', 'identify,full'],
    ['duplicate full', 'full full'],
    ['non-string item', ['identify', 1]],
    ['null item', [null]],
    ['nested array', [['identify']]],
    ['number', 3],
    ['boolean', true],
    ['object', { identify: true }],
  ])('refuses %s with invalid_modules', (_label, value) => {
    const error = expectCode(() => parseModules(value), 'invalid_modules');
    expect(error.httpStatus).toBe(400);
    expect(error.detail.length).toBeGreaterThan(10);
  });

  it('names the unknown module and the valid ones', () => {
    const { detail } = expectCode(() => parseModules('identify,valuation'), 'invalid_modules');
    expect(detail).toContain('"valuation"');
    expect(detail).toContain('identify, grade, market, full');
  });

  it('explains why full cannot be combined', () => {
    expect(expectCode(() => parseModules(['full', 'market']), 'invalid_modules').detail).toMatch(/full.*cannot be combined/);
  });

  it('hints at lower case for a capitalised name', () => {
    expect(expectCode(() => parseModules('Grade'), 'invalid_modules').detail).toMatch(/lower-case/);
  });
});

describe('parseIdempotencyKey', () => {
  it('is undefined without the header', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
  });

  it.each(['a', 'A-b_9', 'x'.repeat(64), '0123456789abcdefABCDEF_-', 'scan-2026-01-01_retry'])('accepts %s', (key) => {
    expect(parseIdempotencyKey(key)).toBe(key);
  });

  it.each(['', 'x'.repeat(65), 'has space', 'semi;colon', 'dot.ted', 'slash/ed', 'ümlaut', 'a,b', ' lead', 'trail\t'])(
    'refuses %j with invalid_idempotency_key and does not echo it',
    (key) => {
      const error = expectCode(() => parseIdempotencyKey(key), 'invalid_idempotency_key');
      expect(error.httpStatus).toBe(400);
      if (key.trim().length > 3) expect(error.detail).not.toContain(key.trim());
    },
  );
});

describe('requestFingerprint', () => {
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
  const other = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 4]);
  const sha = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

  it('is the sha256 of the canonical JSON (sorted module values, url:/sha256: images, null back)', () => {
    const fromUrls = requestFingerprint({ modules: [GRADE, IDENTIFY], front: { url: 'https://x.example/f.jpg' } });
    expect(fromUrls).toBe(sha(JSON.stringify({ modules: [1, 2], front: 'url:https://x.example/f.jpg', back: null })));

    const fromBytes = requestFingerprint({ modules: [FULL], front: { content: png }, back: { content: other } });
    expect(fromBytes).toBe(sha(JSON.stringify({ modules: [4], front: `sha256:${sha(png)}`, back: `sha256:${sha(other)}` })));
    expect(fromBytes).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores the order of the modules', () => {
    const a = requestFingerprint({ modules: [MARKET, IDENTIFY, GRADE], front: { url: 'https://x.example/f.jpg' } });
    const b = requestFingerprint({ modules: [IDENTIFY, GRADE, MARKET], front: { url: 'https://x.example/f.jpg' } });
    expect(a).toBe(b);
  });

  it('differs when anything of the request differs', () => {
    const base = { modules: [IDENTIFY], front: { url: 'https://x.example/f.jpg' } };
    const prints = new Set([
      requestFingerprint(base),
      requestFingerprint({ ...base, modules: [GRADE] }),
      requestFingerprint({ ...base, modules: [IDENTIFY, GRADE] }),
      requestFingerprint({ ...base, front: { url: 'https://x.example/g.jpg' } }),
      requestFingerprint({ ...base, back: { url: 'https://x.example/b.jpg' } }),
      // The same URL as front and back, or swapped sides, are different requests.
      requestFingerprint({ ...base, front: { url: 'https://x.example/b.jpg' }, back: { url: 'https://x.example/f.jpg' } }),
      requestFingerprint({ ...base, front: { content: png } }),
      requestFingerprint({ ...base, front: { content: other } }),
      requestFingerprint({ ...base, front: { content: png }, back: { content: png } }),
    ]);
    expect(prints.size).toBe(9);
  });

  it('depends on the bytes, not on the buffer holding them', () => {
    const copy = Buffer.concat([Buffer.from([9, 9]), Buffer.from(png)]).subarray(2);
    expect(requestFingerprint({ modules: [IDENTIFY], front: { content: copy } })).toBe(requestFingerprint({ modules: [IDENTIFY], front: { content: png } }));
  });
});

describe('parseScanId', () => {
  it.each([['1', 1], ['123', 123], ['9007199254740991', Number.MAX_SAFE_INTEGER]])('reads %s', (raw, id) => {
    expect(parseScanId(raw)).toBe(id);
  });

  it.each([undefined, '', '0', '-1', '01', '1.5', '1e3', 'abc', ' 1', '0x10', '12a', '9007199254740993', '1234567890123456789', ['1']])(
    'gives 404 scan_not_found (never 400) for %j',
    (raw) => {
      const error = expectCode(() => parseScanId(raw), 'scan_not_found');
      expect(error.httpStatus).toBe(404);
    },
  );
});
