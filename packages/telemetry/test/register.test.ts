import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('node --import tsx --import @cardlens/telemetry/register', () => {
  it('instruments statically imported @grpc/grpc-js: the server span continues the caller trace', async () => {
    // Every trace recorded (exporting nothing would otherwise record nothing), to see the span's kind.
    const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', OTEL_TRACES_SAMPLER_ARG: '1' };
    delete env.NODE_OPTIONS; // jest's --experimental-vm-modules is not for the child
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--import', '@cardlens/telemetry/register', 'test/fixtures/grpc-trace.ts'],
      { cwd: root, env, timeout: 30_000 },
    );
    const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as {
      callerTraceId: string;
      response: { traceId: string | null; kind: number | null; traceparent: string | null };
      logs: string[];
    };
    expect(result.response.traceparent).toMatch(new RegExp(`^00-${result.callerTraceId}-[0-9a-f]{16}-01$`));
    expect(result.response.traceId).toBe(result.callerTraceId);
    expect(result.response.kind).toBe(1); // SpanKind.SERVER, created by the gRPC instrumentation
    expect(JSON.parse(result.logs[0] ?? '{}')).toMatchObject({ service: 'fixture', trace_id: result.callerTraceId });
  });

  it('leaves worker threads alone: they inherit the flags without tsx, and still start', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.NODE_OPTIONS;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--import', '@cardlens/telemetry/register', 'test/fixtures/plain-worker.ts'],
      { cwd: root, env, timeout: 30_000 },
    );
    expect(stdout.trim()).toBe('worker up');
  });
});
