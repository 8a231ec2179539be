import { accessSync, constants } from 'node:fs';
import type * as JestGlobals from '@jest/globals';
import { chromium, type Browser } from 'playwright-core';
import { isCi } from './env';

/** Debian's chromium (installed by .ci/run), or CHROMIUM_PATH. */
export function chromiumPath(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => Boolean(p));
  return candidates.find((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Headless Chromium through playwright-core (which downloads no browser of its own). */
export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('No Chromium found (set CHROMIUM_PATH, or `apt-get install chromium`; .ci/run installs it).');
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

type Globals = Pick<typeof JestGlobals, 'describe' | 'beforeAll'>;

/**
 * `describe` for browser tests, in the manner of describeWithInfra: locally without Chromium the block is
 * skipped with a loud warning; with CI=true a missing Chromium makes every test of the block fail.
 */
export function describeWithBrowser(name: string, fn: () => void): void {
  const { describe, beforeAll } = globalThis as unknown as Globals;
  if (!chromiumPath() && !isCi()) {
    process.stderr.write(`\n!!! SKIPPING "${name}": no Chromium (apt-get install chromium, or set CHROMIUM_PATH). With CI=true this is a test failure.\n`);
    describe.skip(name, fn);
    return;
  }
  describe(name, () => {
    beforeAll(() => {
      if (!chromiumPath()) throw new Error(`"${name}" needs Chromium and none was found (CI=true: missing infrastructure is a failure).`);
    });
    fn();
  });
}
