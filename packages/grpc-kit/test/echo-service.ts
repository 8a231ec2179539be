// A hand-written service in the shape ts-proto (outputServices=grpc-js) generates, with JSON instead of
// protobuf encoding, so grpc-kit is tested against the same types the generated contracts have.
import {
  makeGenericClientConstructor,
  type CallOptions,
  type ChannelCredentials,
  type Client,
  type ClientOptions,
  type ClientUnaryCall,
  type handleUnaryCall,
  type Metadata,
  type ServiceError,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';

export interface EchoRequest {
  text: string;
  delayMs?: number;
  fail?: 'app' | 'app-unicode' | 'crash' | 'db-dropped' | 'forward';
  forwardTo?: string;
}
export interface EchoResponse {
  text: string;
}

const json = {
  serialize: (value: unknown): Buffer => Buffer.from(JSON.stringify(value)),
  deserialize: <T>(buffer: Buffer): T => JSON.parse(buffer.toString()) as T,
};

export const EchoServiceService = {
  echo: {
    path: '/test.v1.EchoService/Echo' as const,
    requestStream: false as const,
    responseStream: false as const,
    requestSerialize: (value: EchoRequest): Buffer => json.serialize(value),
    requestDeserialize: (value: Buffer): EchoRequest => json.deserialize<EchoRequest>(value),
    responseSerialize: (value: EchoResponse): Buffer => json.serialize(value),
    responseDeserialize: (value: Buffer): EchoResponse => json.deserialize<EchoResponse>(value),
  },
} as const;

export interface EchoServiceServer extends UntypedServiceImplementation {
  echo: handleUnaryCall<EchoRequest, EchoResponse>;
}

export interface EchoServiceClient extends Client {
  echo(request: EchoRequest, callback: (error: ServiceError | null, response: EchoResponse) => void): ClientUnaryCall;
  echo(
    request: EchoRequest,
    metadata: Metadata,
    callback: (error: ServiceError | null, response: EchoResponse) => void,
  ): ClientUnaryCall;
  echo(
    request: EchoRequest,
    metadata: Metadata,
    options: Partial<CallOptions>,
    callback: (error: ServiceError | null, response: EchoResponse) => void,
  ): ClientUnaryCall;
}

export const EchoServiceClient = makeGenericClientConstructor(EchoServiceService, 'test.v1.EchoService') as unknown as {
  new (address: string, credentials: ChannelCredentials, options?: Partial<ClientOptions>): EchoServiceClient;
  service: typeof EchoServiceService;
  serviceName: string;
};
