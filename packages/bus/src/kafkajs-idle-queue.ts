/**
 * kafkajs 2.2.4 (its last release) keeps a timer firing every millisecond on each broker connection whose request
 * queue is empty, for as long as the connection lives. After each response, `scheduleCheckPendingRequests` arms
 * a check at `throttledUntil - Date.now()`, which is negative when nothing throttles the connection (Node fires it
 * after 1 ms, and since Node 24 prints a TimeoutNegativeWarning, outside our JSON logs), and every check arms the
 * next one (tulios/kafkajs#1704, #1751; the fixes proposed there are not released).
 *
 * Measured here (`npm run bench:idle-queue`, a local broker, medians of 5 runs): an idle process holding a producer,
 * an admin and a consumer ran 2,787 checks a second and used 2.6 % of a core; with this mend, none and 0.5 %.
 *
 * A check is only needed while requests wait in the queue (the broker throttles the client, or the in-flight limit is
 * reached): a request pushed onto an empty queue is sent at once, or is queued and arms its own check. So with
 * nothing waiting, no check is armed.
 */
import type { EventEmitter } from 'node:events';
// @ts-expect-error -- kafkajs ships no types for its per-connection request queue; RequestQueueClass describes it.
import untypedRequestQueue from 'kafkajs/src/network/requestQueue/index.js';

/** A request as kafkajs' Connection pushes it onto the queue. */
export interface PushedRequest {
  entry: { correlationId: number; apiKey: number; apiName: string; apiVersion: number; resolve(value: unknown): void; reject(error: unknown): void };
  expectResponse: boolean;
  requestTimeout?: number;
  sendRequest(): void;
}

/** The part of kafkajs' request queue that this module mends, and its tests and bench drive. */
export interface RequestQueue extends EventEmitter {
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

interface RequestQueueClass {
  new (options: { maxInFlightRequests: number | null; requestTimeout: number; enforceRequestTimeout: boolean; clientId: string; broker: string; logger: unknown; isConnected?: () => boolean }): RequestQueue;
  prototype: RequestQueue;
}

/** kafkajs' own class (the module its connections load), typed. */
export const RequestQueue = untypedRequestQueue as RequestQueueClass;

/** The version whose RequestQueue this was read against; the tests fail when the installed one differs. */
export const KAFKAJS_VERSION_PATCHED = '2.2.4';

const PATCHED = Symbol.for('cardlens.kafkajs.idleQueueChecks');

type QueueWithPatch = RequestQueue & { [PATCHED]?: true };

/** Stops the idle checks on every kafkajs connection made from now on and on those already open. Idempotent. */
export function stopIdleQueueChecks(): void {
  const proto = RequestQueue.prototype as QueueWithPatch;
  if (proto[PATCHED]) return;
  const schedule = proto.scheduleCheckPendingRequests;
  proto.scheduleCheckPendingRequests = function scheduleWhilePending(this: RequestQueue) {
    if (this.pending.length === 0) return;
    schedule.call(this);
  };
  proto[PATCHED] = true;
}
