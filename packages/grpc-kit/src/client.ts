import * as grpc from '@grpc/grpc-js';
import { histogram } from '@cardlens/telemetry';
import { serviceErrorToAppError } from './error-metadata';
import { MAX_MESSAGE_BYTES } from './server';

type UnaryCallback<Res> = (error: grpc.ServiceError | null, response: Res) => void;

/** The (request, metadata, options, callback) overload every ts-proto grpc-js client method has (last). */
type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: UnaryCallback<Res>,
) => grpc.ClientUnaryCall;

/** Names of the unary methods of a generated client. */
export type UnaryMethodName<C> = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  [K in keyof C]-?: C[K] extends UnaryMethod<any, any> ? K : never;
}[keyof C];

export type RequestOf<F> = F extends UnaryMethod<infer Req, infer _Res> ? Req : never;
export type ResponseOf<F> = F extends UnaryMethod<infer _Req, infer Res> ? Res : never;

/** Every outgoing unary call, by method (the client's camelCase name) and gRPC status. */
const clientCallSeconds = histogram('cardlens_grpc_client_call_seconds', 'Outgoing gRPC unary calls: duration by method and status code.', ['method', 'code']);

export interface CallUnaryOptions {
  /** Deadline for this hop, from now. */
  deadlineMs: number;
  metadata?: grpc.Metadata;
}

/** Sends of one call refused by the server before it read them (see callUnary), at most. */
const REFUSED_STREAM_ATTEMPTS = 4;

/**
 * A stream the server refused (HTTP/2 REFUSED_STREAM) was never processed: the server was closing the connection
 * (an aged-out connection's GOAWAY crossed the call on the wire). Sending it again is safe for any call.
 */
const isRefusedStream = (error: grpc.ServiceError): boolean => error.code === grpc.status.UNAVAILABLE && /stream refused/i.test(error.details);

/**
 * Calls a unary method of a ts-proto (grpc-js) client and returns a promise. A failure is always an
 * AppError: the one the server threw (same code, detail, extras), or service_unavailable for an
 * unreachable server or exceeded deadline, or internal_error. A call the server refused unread, while it was
 * closing an aged-out connection, is sent again (grpc-js retries that transparently only once) within the same
 * deadline.
 *
 * `await callUnary(scansClient, 'getScan', { scanId }, { deadlineMs: 2_000 })`
 */
export function callUnary<C extends grpc.Client, M extends UnaryMethodName<C>>(
  client: C,
  method: M,
  request: RequestOf<C[M]>,
  { deadlineMs, metadata = new grpc.Metadata() }: CallUnaryOptions,
): Promise<ResponseOf<C[M]>> {
  const fn = client[method] as UnaryMethod<RequestOf<C[M]>, ResponseOf<C[M]>>;
  const done = clientCallSeconds.startTimer({ method: String(method) });
  const deadline = Date.now() + deadlineMs;
  return new Promise((resolve, reject) => {
    const send = (attempt: number) =>
      fn.call(client, request, metadata, { deadline }, (error, response) => {
        if (error && isRefusedStream(error) && attempt < REFUSED_STREAM_ATTEMPTS && Date.now() < deadline) {
          send(attempt + 1);
          return;
        }
        done({ code: grpc.status[error ? error.code : grpc.status.OK] });
        if (error) reject(serviceErrorToAppError(error));
        else resolve(response);
      });
    send(1);
  });
}

export type ClientConstructor<C extends grpc.Client> = new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: Partial<grpc.ClientOptions>,
) => C;

/**
 * Calls are spread over every address the target resolves to (round_robin), one HTTP/2 connection each.
 * gRPC's default, pick_first, pins every call of a client to one connection and so to one replica: behind a
 * Kubernetes headless Service (`dns:///scans:50051` resolves to each ready pod) round_robin is what makes a
 * scaled-out service take load. New pods are found when the resolver runs again: on any connection loss, which
 * the servers force every MAX_CONNECTION_AGE_MS (server.ts).
 */
export const LOAD_BALANCING_SERVICE_CONFIG = JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] });

/**
 * A client for ts-proto's generated constructor (`createClient(ScansServiceClient, 'dns:///scans:50051')`) with
 * insecure credentials (the mesh does mTLS), round-robin over the target's addresses, keepalive pings so dead
 * peers are noticed in seconds rather than at the next call, and 32 MiB messages.
 */
export function createClient<C extends grpc.Client>(Client: ClientConstructor<C>, address: string): C {
  return new Client(address, grpc.credentials.createInsecure(), {
    'grpc.service_config': LOAD_BALANCING_SERVICE_CONFIG,
    'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
    'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
    'grpc.keepalive_time_ms': 30_000,
    'grpc.keepalive_timeout_ms': 10_000,
    // grpc-js servers do not police ping rates; a grpc-core/Go server would need a matching policy.
    'grpc.keepalive_permit_without_calls': 1,
  });
}
