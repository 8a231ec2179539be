import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const jestBin = path.resolve(packageDir, '../../node_modules/jest/bin/jest.js');

function runFixture(env: Record<string, string | undefined>) {
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    NODE_OPTIONS: '--experimental-vm-modules --no-warnings',
    ...env,
  };
  for (const [name, value] of Object.entries(childEnv)) if (value === undefined) delete childEnv[name];
  const result = spawnSync(
    process.execPath,
    [jestBin, '--ci', '--testMatch', '**/test/fixtures/guarded.fixture.ts', '--testPathIgnorePatterns', '/node_modules/'],
    { cwd: packageDir, env: childEnv as NodeJS.ProcessEnv, encoding: 'utf8', timeout: 60_000 },
  );
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('describeWithInfra in a real jest run', () => {
  it('CI=true and the service down: the suite FAILS (never skips)', () => {
    const { status, output } = runFixture({ CI: 'true', REDIS_URL: 'redis://127.0.0.1:1' });
    expect(status).toBe(1);
    expect(output).toMatch(/redis is not reachable at redis:\/\/127\.0\.0\.1:1/);
    expect(output).toMatch(/1 failed/);
  });

  it('locally with the service down: the suite is skipped with a loud warning', () => {
    const { status, output } = runFixture({ CI: undefined, REDIS_URL: 'redis://127.0.0.1:1' });
    expect(status).toBe(0);
    expect(output).toMatch(/SKIPPING "guarded block"/);
    expect(output).toMatch(/1 skipped/);
  });
});
