/** The part of kafkajs' (untyped) per-connection request queue that kafkajs-idle-queue.ts patches and tests. */
declare module 'kafkajs/src/network/requestQueue/index.js' {
  import type { EventEmitter } from 'node:events';

  interface PushedRequest {
    entry: { correlationId: number; apiKey: number; apiName: string; apiVersion: number; resolve(value: unknown): void; reject(error: unknown): void };
    expectResponse: boolean;
    requestTimeout?: number;
    sendRequest(): void;
  }

  export default class RequestQueue extends EventEmitter {
    constructor(options: {
      maxInFlightRequests: number | null;
      requestTimeout: number;
      enforceRequestTimeout: boolean;
      clientId: string;
      broker: string;
      logger: unknown;
      isConnected?: () => boolean;
    });
    pending: unknown[];
    inflight: Map<number, unknown>;
    throttledUntil: number;
    throttleCheckTimeoutId: NodeJS.Timeout | null;
    push(request: PushedRequest): void;
    fulfillRequest(response: { correlationId: number; payload: unknown; size: number }): void;
    maybeThrottle(clientSideThrottleTime: number | null): void;
    checkPendingRequests(): void;
    scheduleCheckPendingRequests(): void;
    destroy(): void;
  }
}
