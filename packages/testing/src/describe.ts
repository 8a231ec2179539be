import type * as JestGlobals from '@jest/globals';
import { isCi, type InfraKind } from './env';
import { assertInfra, warnSkipped } from './probe';
import { unreachableKindsSync } from './sync-probe';

type Globals = Pick<typeof JestGlobals, 'describe' | 'beforeAll'>;

function jestGlobals(): Globals {
  const g = globalThis as unknown as Partial<Globals>;
  if (typeof g.describe !== 'function' || typeof g.beforeAll !== 'function') {
    throw new Error('describeWithInfra must be called from a jest test file (jest injects describe/beforeAll)');
  }
  return g as Globals;
}

/**
 * `describe` for tests that need real services.
 * - Locally (CI unset): when a service's port refuses connections the block is registered with
 *   `describe.skip` and a loud warning is printed.
 * - Always: a `beforeAll` registered before the block's own hooks checks every service with a real request
 *   (SELECT 1 / PING / Kafka metadata) and throws InfraUnavailableError when one does not answer, so with
 *   CI=true a missing service makes every test in the block FAIL, never skip.
 */
export function describeWithInfra(kinds: InfraKind | readonly InfraKind[], name: string, fn: () => void): void {
  const { describe, beforeAll } = jestGlobals();
  const list: readonly InfraKind[] = typeof kinds === 'string' ? [kinds] : kinds;
  if (!isCi()) {
    const missing = unreachableKindsSync(list);
    if (missing.length > 0) {
      for (const kind of missing) warnSkipped(kind, 'connection refused or timed out', `"${name}"`);
      describe.skip(name, fn);
      return;
    }
  }
  describe(name, () => {
    beforeAll(async () => {
      for (const kind of list) await assertInfra(kind);
    });
    fn();
  });
}
