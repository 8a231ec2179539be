import { AsyncLocalStorage } from 'node:async_hooks';
import * as grpc from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { AppError, toClientError } from '@cardlens/errors';
import { createLogger, histogram, type Logger } from '@cardlens/telemetry';
import { appErrorToStatus } from './error-metadata';

/** Images travel over gRPC: allow messages up to 32 MiB both ways (grpc-js defaults to 4 MiB received). */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/** How long a client connection lives before the server asks it to reconnect (see createClient). */
export const MAX_CONNECTION_AGE_MS = 5 * 60_000;
/** Long enough for the slowest call (a scan's analysis budget plus valuation) to finish on the old connection. */
export const MAX_CONNECTION_AGE_GRACE_MS = 120_000;

export interface GrpcService {
  /** e.g. ts-proto's `ScansServiceService` */
  definition: grpc.ServiceDefinition;
  /** e.g. an object satisfying ts-proto's `ScansServiceServer`, built with unaryHandler() */
  implementation: grpc.UntypedServiceImplementation;
}

export interface StartGrpcServerOptions {
  /** 0 picks a free port (tests). */
  port: number;
  /** Defaults to loopback; a pod binds 0.0.0.0. */
  host?: string;
  services: GrpcService[];
  /** Logs lifecycle events and the unexpected errors of this server's unaryHandler()s. */
  logger: Logger;
  /** Defaults to MAX_CONNECTION_AGE_MS (tests shorten it). */
  maxConnectionAgeMs?: number;
}

export interface GrpcServer {
  /** The bound port (useful with port 0). */
  port: number;
  server: grpc.Server;
  /** grpc.health.v1 statuses: '' (whole server) and each service name start SERVING. */
  health: HealthImplementation;
  /** Reports NOT_SERVING, lets in-flight calls finish for up to graceMs, then cancels the rest. */
  shutdown(graceMs?: number): Promise<void>;
}

const serverLogger = new AsyncLocalStorage<Logger>();

let fallbackLogger: Logger | undefined;

/** The logger of the server running the current handler (a 'grpc' logger outside startGrpcServer). */
function currentServerLogger(): Logger {
  return serverLogger.getStore() ?? (fallbackLogger ??= createLogger('grpc'));
}

/** 'pkg.v1.Service' from a definition's method paths ('/pkg.v1.Service/Method'). */
export function serviceName(definition: grpc.ServiceDefinition): string {
  const path = Object.values(definition)[0]?.path ?? '';
  return path.slice(1, path.lastIndexOf('/'));
}

type Handler = (this: unknown, ...args: unknown[]) => unknown;

/** Every unary call this process serves, by service, method and gRPC status. */
const serverHandlingSeconds = histogram('cardlens_grpc_server_handling_seconds', 'Served gRPC unary calls: duration by service, method and status code.', ['service', 'method', 'code']);

/**
 * Wraps every handler: it runs with the server's logger in reach of unaryHandler (methods may live on a
 * prototype), and unary calls are timed into cardlens_grpc_server_handling_seconds with their status code.
 */
function instrumentHandlers(
  definition: grpc.ServiceDefinition,
  implementation: grpc.UntypedServiceImplementation,
  logger: Logger,
): grpc.UntypedServiceImplementation {
  const wrapped: Record<string, Handler> = {};
  for (const [name, method] of Object.entries(definition)) {
    const handler: unknown = implementation[name] ?? (method.originalName ? implementation[method.originalName] : undefined);
    if (typeof handler !== 'function') continue; // grpc-js answers UNIMPLEMENTED
    const labels = { service: serviceName(definition), method: method.path.slice(method.path.lastIndexOf('/') + 1) };
    wrapped[name] = (...args) => {
      // Unary handlers are (call, callback): time them until the callback answers, with its status code.
      const [call, callback] = args as [unknown, ((error: { code?: number } | null, ...rest: unknown[]) => void) | undefined];
      if (typeof callback === 'function') {
        const done = serverHandlingSeconds.startTimer(labels);
        args = [call, (error: { code?: number } | null, ...rest: unknown[]) => {
          done({ code: grpc.status[error ? (error.code ?? grpc.status.UNKNOWN) : grpc.status.OK] });
          callback(error, ...rest);
        }];
      }
      return serverLogger.run(logger, () => (handler as Handler).apply(implementation, args));
    };
  }
  return wrapped as unknown as grpc.UntypedServiceImplementation;
}

/**
 * Starts a gRPC server with the given services and the standard grpc.health.v1 service.
 *
 * Credentials are insecure on purpose: transport security between pods (mTLS) is the service mesh's
 * job, and the default host is loopback so nothing is exposed by accident outside a cluster.
 */
export async function startGrpcServer({ port, host = '127.0.0.1', services, logger, maxConnectionAgeMs = MAX_CONNECTION_AGE_MS }: StartGrpcServerOptions): Promise<GrpcServer> {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
    'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
    // Connections are closed (GOAWAY, calls in flight finish within the grace) after this age, so clients
    // resolve their target again and spread onto replicas that started since they connected.
    'grpc.max_connection_age_ms': maxConnectionAgeMs,
    'grpc.max_connection_age_grace_ms': MAX_CONNECTION_AGE_GRACE_MS,
  });
  const names = services.map((s) => serviceName(s.definition));
  for (const { definition, implementation } of services) {
    server.addService(definition, instrumentHandlers(definition, implementation, logger));
  }
  const health = new HealthImplementation(Object.fromEntries(['', ...names].map((name) => [name, 'SERVING' as const])));
  health.addToServer(server);

  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const boundPort = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  logger.info({ host, port: boundPort, services: names }, 'gRPC server listening');

  let stopping: Promise<void> | undefined;
  const shutdown = (graceMs = 10_000) =>
    (stopping ??= new Promise<void>((resolve) => {
      for (const name of ['', ...names]) health.setStatus(name, 'NOT_SERVING');
      const timer = setTimeout(() => {
        logger.warn({ graceMs }, 'gRPC calls still running after the grace period; cancelling them');
        server.forceShutdown();
        resolve();
      }, graceMs);
      timer.unref();
      server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    }));

  return { port: boundPort, server, health, shutdown };
}

/**
 * Adapts `async (request, call) => response` to a grpc-js unary handler. A thrown AppError becomes the
 * status from the error table plus cl-error-* metadata (see error-metadata.ts) that callUnary() turns back
 * into the same AppError. Anything else is logged with its stack (and trace_id) and reaches the caller as
 * INTERNAL / internal_error with a generic detail (no internals leak), or, when a dependency dropped its
 * connection or is restarting (a lost database connection), as service_unavailable with Retry-After.
 */
export function unaryHandler<Req, Res>(
  fn: (request: Req, call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res> | Res,
  options: { logger?: Logger } = {},
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const logger = options.logger ?? currentServerLogger();
    Promise.resolve()
      .then(() => fn(call.request, call))
      .then(
        (response) => callback(null, response),
        (error: unknown) => {
          if (!(error instanceof AppError)) {
            logger.error({ err: error, rpc: call.getPath() }, 'unhandled error in gRPC handler');
          }
          callback(appErrorToStatus(toClientError(error)));
        },
      );
  };
}
