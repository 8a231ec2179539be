import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as grpc from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { AppError } from '@cardlens/errors';
import { createLogger, metricsRegistry } from '@cardlens/telemetry';
import { callUnary, createClient, startGrpcServer, unaryHandler, type GrpcServer } from '../src/index';
import { EchoServiceClient, EchoServiceService, type EchoServiceServer } from './echo-service';

const INTERNALS = 'relation "billing.ledger" does not exist at /srv/app/ledger.ts:12';
const UNICODE_DETAIL = 'Carte « Pikachu » : il faut 2 crédits — vous en avez 1.';

const logLines: string[] = [];
const logger = createLogger('grpc-kit-test', { write: (line: string) => void logLines.push(line) });

const implementation: EchoServiceServer = {
  echo: unaryHandler(async (request) => {
    if (request.delayMs) await new Promise((resolve) => setTimeout(resolve, request.delayMs));
    switch (request.fail) {
      case 'app':
        throw new AppError('insufficient_credits', 'Need 2 credits, have 1.', {
          extras: { creditsRemaining: 1, purchaseUrl: '/v1/credits/packs' },
          retryAfterSeconds: 30,
        });
      case 'app-unicode':
        throw new AppError('invalid_pack', UNICODE_DETAIL);
      case 'crash':
        throw new Error(INTERNALS);
      case 'db-dropped':
        // What Prisma's pg adapter throws when the server ends the connection (an admin shutdown, a failover).
        throw new Error('Invalid prisma.scan.findUnique() invocation', { cause: Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }) });
      case 'forward': {
        // A second hop: the AppError thrown downstream is rethrown unchanged by this handler.
        const downstream = createClient(EchoServiceClient, request.forwardTo ?? '');
        try {
          return await callUnary(downstream, 'echo', { text: request.text, fail: 'app' }, { deadlineMs: 2_000 });
        } finally {
          downstream.close();
        }
      }
      default:
        return { text: request.text };
    }
  }),
};

let server: GrpcServer;
let client: EchoServiceClient;
let address: string;

beforeAll(async () => {
  server = await startGrpcServer({ port: 0, services: [{ definition: EchoServiceService, implementation }], logger });
  address = `127.0.0.1:${server.port}`;
  client = createClient(EchoServiceClient, address);
});

afterAll(async () => {
  client.close();
  await server.shutdown(1_000);
});

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('grpc-kit round trip on 127.0.0.1:0', () => {
  it('types callUnary from the generated client (checked by tsc)', () => {
    const typed = (): Promise<{ text: string }> => callUnary(client, 'echo', { text: 'a' }, { deadlineMs: 1 });
    // @ts-expect-error close is not a unary RPC
    const notUnary = () => callUnary(client, 'close', {}, { deadlineMs: 1 });
    // @ts-expect-error wrong request shape
    const wrongRequest = () => callUnary(client, 'echo', { txt: 'a' }, { deadlineMs: 1 });
    expect([typed, notUnary, wrongRequest]).toHaveLength(3);
  });

  it('returns the response', async () => {
    const response = await callUnary(client, 'echo', { text: 'hello' }, { deadlineMs: 2_000 });
    expect(response).toEqual({ text: 'hello' });
  });

  it('carries messages larger than the 4 MiB grpc-js default (images)', async () => {
    const text = 'x'.repeat(12 * 1024 * 1024);
    const response = await callUnary(client, 'echo', { text }, { deadlineMs: 10_000 });
    expect(response.text.length).toBe(text.length);
  });

  it('preserves an AppError: code, detail, extras, Retry-After and the table gRPC status', async () => {
    const error = await rejection(callUnary(client, 'echo', { text: '', fail: 'app' }, { deadlineMs: 2_000 }));
    expect(error.code).toBe('insufficient_credits');
    expect(error.detail).toBe('Need 2 credits, have 1.');
    expect(error.extras).toEqual({ creditsRemaining: 1, purchaseUrl: '/v1/credits/packs' });
    expect(error.retryAfterSeconds).toBe(30);
    expect((error.cause as grpc.ServiceError).code).toBe(grpc.status.FAILED_PRECONDITION);
  });

  it('preserves a non-ASCII detail', async () => {
    const error = await rejection(callUnary(client, 'echo', { text: '', fail: 'app-unicode' }, { deadlineMs: 2_000 }));
    expect(error.code).toBe('invalid_pack');
    expect(error.detail).toBe(UNICODE_DETAIL);
    expect((error.cause as grpc.ServiceError).code).toBe(grpc.status.INVALID_ARGUMENT);
  });

  it('preserves the code across two hops', async () => {
    const error = await rejection(
      callUnary(client, 'echo', { text: 'x', fail: 'forward', forwardTo: address }, { deadlineMs: 3_000 }),
    );
    expect(error.code).toBe('insufficient_credits');
    expect(error.extras).toEqual({ creditsRemaining: 1, purchaseUrl: '/v1/credits/packs' });
  });

  it('turns an unknown error into internal_error without leaking it, and logs it on the server', async () => {
    logLines.length = 0;
    const error = await rejection(callUnary(client, 'echo', { text: '', fail: 'crash' }, { deadlineMs: 2_000 }));
    expect(error.code).toBe('internal_error');
    const cause = error.cause as grpc.ServiceError;
    expect(cause.code).toBe(grpc.status.INTERNAL);
    expect(JSON.stringify({ detail: error.detail, message: error.message, details: cause.details, md: cause.metadata.getMap() })).not.toMatch(/ledger|relation|app\.ts/);

    const logged = logLines.map((l) => JSON.parse(l) as Record<string, unknown>).find((r) => r.level === 'error');
    expect(logged).toMatchObject({ service: 'grpc-kit-test', rpc: '/test.v1.EchoService/Echo', err: { message: INTERNALS } });
  });

  it('turns a dropped database connection into service_unavailable with Retry-After, without leaking it', async () => {
    const error = await rejection(callUnary(client, 'echo', { text: '', fail: 'db-dropped' }, { deadlineMs: 2_000 }));
    expect(error.code).toBe('service_unavailable');
    expect(error.retryAfterSeconds).toBe(5);
    expect(error.detail).toMatch(/briefly unavailable/);
    expect(JSON.stringify({ detail: error.detail, message: error.message })).not.toMatch(/prisma|administrator|57P01/);
  });

  it('maps an exceeded deadline to service_unavailable', async () => {
    const error = await rejection(callUnary(client, 'echo', { text: '', delayMs: 1_000 }, { deadlineMs: 50 }));
    expect(error.code).toBe('service_unavailable');
    expect((error.cause as grpc.ServiceError).code).toBe(grpc.status.DEADLINE_EXCEEDED);
  });

  it('maps an unreachable server to service_unavailable', async () => {
    const down = await startGrpcServer({ port: 0, services: [], logger });
    await down.shutdown();
    const orphan = createClient(EchoServiceClient, `127.0.0.1:${down.port}`);
    try {
      const error = await rejection(callUnary(orphan, 'echo', { text: '' }, { deadlineMs: 2_000 }));
      expect(error.code).toBe('service_unavailable');
      expect((error.cause as grpc.ServiceError).code).toBe(grpc.status.UNAVAILABLE);
    } finally {
      orphan.close();
    }
  });

  it('serves grpc.health.v1 Check: SERVING for the server and each service, NOT_FOUND otherwise', async () => {
    const HealthClient = grpc.makeGenericClientConstructor(healthService as grpc.ServiceDefinition, 'grpc.health.v1.Health');
    const health = new HealthClient(address, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
      Check(req: { service: string }, cb: (e: grpc.ServiceError | null, r: { status: string }) => void): void;
    };
    const check = (service: string) =>
      new Promise<string>((resolve, reject) => health.Check({ service }, (e, r) => (e ? reject(e) : resolve(r.status))));
    try {
      expect(await check('')).toBe('SERVING');
      expect(await check('test.v1.EchoService')).toBe('SERVING');
      await expect(check('nope.v1.Nope')).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    } finally {
      health.close();
    }
  });
});

describe('metrics', () => {
  it('counts served and outgoing calls by method and status code', async () => {
    await callUnary(client, 'echo', { text: 'counted' }, { deadlineMs: 2_000 });
    await rejection(callUnary(client, 'echo', { text: 'x', fail: 'app' }, { deadlineMs: 2_000 }));
    const text = await metricsRegistry.metrics();
    expect(text).toMatch(/cardlens_grpc_server_handling_seconds_count\{service="test\.v1\.EchoService",method="Echo",code="OK"\} [1-9]/);
    expect(text).toMatch(/cardlens_grpc_server_handling_seconds_count\{service="test\.v1\.EchoService",method="Echo",code="FAILED_PRECONDITION"\} [1-9]/);
    expect(text).toMatch(/cardlens_grpc_client_call_seconds_count\{method="echo",code="OK"\} [1-9]/);
  });
});

describe('a call the server refused unread', () => {
  // A stand-in for a generated client's method: answers each send with the next outcome.
  const clientAnswering = (outcomes: (grpc.ServiceError | null)[]) => {
    const sends: number[] = [];
    const echo = (_request: unknown, _metadata: grpc.Metadata, _options: grpc.CallOptions, callback: (error: grpc.ServiceError | null, response?: { text: string }) => void) => {
      sends.push(sends.length + 1);
      const outcome = outcomes.shift() ?? null;
      setImmediate(() => (outcome ? callback(outcome) : callback(null, { text: 'ok' })));
    };
    return { client: { echo } as unknown as EchoServiceClient, sends };
  };
  const failure = (code: grpc.status, details: string): grpc.ServiceError => Object.assign(new Error(details), { code, details, metadata: new grpc.Metadata() });

  it('is sent again (REFUSED_STREAM: the server was closing an aged-out connection and never read it)', async () => {
    const refused = failure(grpc.status.UNAVAILABLE, 'Stream refused by server');
    const { client, sends } = clientAnswering([refused, refused]);
    await expect(callUnary(client, 'echo', { text: 'x', delayMs: 0 }, { deadlineMs: 1_000 })).resolves.toEqual({ text: 'ok' });
    expect(sends).toHaveLength(3);
  });

  it('other failures, and refusals past the attempts, are not retried', async () => {
    const down = clientAnswering([failure(grpc.status.UNAVAILABLE, 'No connection established')]);
    await expect(callUnary(down.client, 'echo', { text: 'x', delayMs: 0 }, { deadlineMs: 1_000 })).rejects.toMatchObject({ code: 'service_unavailable' });
    expect(down.sends).toHaveLength(1);
    const refused = failure(grpc.status.UNAVAILABLE, 'Stream refused by server');
    const always = clientAnswering([refused, refused, refused, refused, refused]);
    await expect(callUnary(always.client, 'echo', { text: 'x', delayMs: 0 }, { deadlineMs: 1_000 })).rejects.toMatchObject({ code: 'service_unavailable' });
    expect(always.sends).toHaveLength(4);
  });
});
