// Keeps `npm run test:unit` honest: it runs every `*.test.ts` except `*.int.test.ts` (needs Postgres, Redis, Kafka
// or Chromium), `*.e2e.test.ts` (the whole service stack or its process) and `*.slow.test.ts` (needs no server but
// takes too long for the unit target). A test file that reaches for a server must say so in its name.
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Calls that only a test that needs a server (or the whole stack, or a browser) makes. */
const NEEDS_A_SERVER = /\b(describeWithInfra|describeWithBrowser|launchChromium|requireInfra|assertInfra|createTestDatabase|startStack)\s*\(/;
const NOT_UNIT = /\.(int|e2e|slow)\.test\.ts$/;

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'generated' || entry.startsWith('.')) continue;
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...testFiles(full));
    else if (entry.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

describe('test file names', () => {
  const files = ['packages', 'services'].flatMap((top) =>
    readdirSync(path.join(root, top)).flatMap((workspace) =>
      ['src', 'test'].map((sub) => path.join(root, top, workspace, sub)).filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory()).flatMap(testFiles),
    ),
  );

  it('finds the repository\'s test files', () => {
    expect(files.length).toBeGreaterThan(50);
  });

  it('name every unit-target test file that needs a server .int, .e2e or .slow', () => {
    const misnamed = files
      .filter((file) => !NOT_UNIT.test(file))
      .filter((file) => NEEDS_A_SERVER.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(root, file));
    expect(misnamed).toEqual([]);
  });
});
