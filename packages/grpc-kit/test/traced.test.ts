import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('with the telemetry loader hook (as services run)', () => {
  it('continues the caller trace through callUnary and logs unexpected errors with its trace_id', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info' };
    delete env.NODE_OPTIONS;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--import', '@cardlens/telemetry/register', 'test/fixtures/traced-call.ts'],
      { cwd: root, env, timeout: 30_000 },
    );
    const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as {
      callerTraceId: string;
      serverTraceId: string;
      failure: string;
      logs: string[];
    };
    expect(result.serverTraceId).toBe(result.callerTraceId);
    expect(result.failure).toBe('internal_error');
    const error = result.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((r) => r.level === 'error');
    expect(error).toMatchObject({ service: 'traced', trace_id: result.callerTraceId, err: { message: 'secret internals' } });
  });
});
