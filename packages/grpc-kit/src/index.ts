export { callUnary, createClient, type CallUnaryOptions, type ClientConstructor, type RequestOf, type ResponseOf, type UnaryMethodName } from './client';
export { appErrorToStatus, ERROR_METADATA, serviceErrorToAppError } from './error-metadata';
export { MAX_MESSAGE_BYTES, serviceName, startGrpcServer, unaryHandler, type GrpcServer, type GrpcService, type StartGrpcServerOptions } from './server';
