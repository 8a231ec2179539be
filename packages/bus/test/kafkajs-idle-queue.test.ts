import { beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createRequire } from 'node:module';
import { KAFKAJS_VERSION_PATCHED, RequestQueue, stopIdleQueueChecks, type PushedRequest } from '../src/kafkajs-idle-queue';
import { delay } from './support';

// kafkajs' own per-connection request queue, driven the way its Connection drives it: a request is pushed, the
// socket's write is `sendRequest`, and the broker's response arrives as `fulfillRequest`.
const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };

function newQueue(maxInFlightRequests: number | null = null): RequestQueue {
  return new RequestQueue({ maxInFlightRequests, requestTimeout: 30_000, enforceRequestTimeout: false, clientId: 'test', broker: 'localhost:9092', logger: quietLogger });
}

let nextCorrelationId = 1;
function request(sent: number[]): { correlationId: number; done: Promise<unknown>; push: PushedRequest } {
  const correlationId = nextCorrelationId++;
  let resolve!: (value: unknown) => void;
  let reject!: (error: unknown) => void;
  const done = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return {
    correlationId,
    done,
    push: { entry: { correlationId, apiKey: 3, apiName: 'Metadata', apiVersion: 6, resolve, reject }, expectResponse: true, sendRequest: () => sent.push(correlationId) },
  };
}

describe('kafkajs request queue: no checks armed while nothing waits', () => {
  beforeAll(() => stopIdleQueueChecks());

  it('is the kafkajs release the patch was read against', () => {
    const installed = (createRequire(import.meta.url)('kafkajs/package.json') as { version: string }).version;
    // A new release may have changed RequestQueue (or fixed tulios/kafkajs#1704): read it again before upgrading.
    expect(installed).toBe(KAFKAJS_VERSION_PATCHED);
  });

  it('answers a request and then arms no timer (kafkajs alone re-arms a 1 ms check for ever)', async () => {
    const queue = newQueue();
    const sent: number[] = [];
    const checks = jest.spyOn(queue, 'checkPendingRequests');
    const r = request(sent);
    queue.push(r.push);
    expect(sent).toEqual([r.correlationId]);
    queue.fulfillRequest({ correlationId: r.correlationId, payload: { ok: true }, size: 4 });
    await expect(r.done).resolves.toMatchObject({ payload: { ok: true } });
    expect(queue.throttleCheckTimeoutId).toBeNull();
    const after = checks.mock.calls.length;
    await delay(50);
    expect(checks.mock.calls.length).toBe(after);
    queue.destroy();
  });

  it('still sends a request queued while the broker throttles the client, once the throttle ends', async () => {
    const queue = newQueue();
    const sent: number[] = [];
    queue.maybeThrottle(80);
    const r = request(sent);
    queue.push(r.push);
    expect(sent).toEqual([]);
    expect(queue.pending).toHaveLength(1);
    expect(queue.throttleCheckTimeoutId).not.toBeNull();
    await delay(200);
    expect(sent).toEqual([r.correlationId]);
    queue.fulfillRequest({ correlationId: r.correlationId, payload: null, size: 0 });
    await r.done;
    expect(queue.pending).toHaveLength(0);
    expect(queue.throttleCheckTimeoutId).toBeNull();
    queue.destroy();
  });

  it('sends requests held back by the in-flight limit as earlier ones are answered', async () => {
    const queue = newQueue(1);
    const sent: number[] = [];
    const [a, b, c] = [request(sent), request(sent), request(sent)];
    for (const r of [a, b, c]) queue.push(r.push);
    expect(sent).toEqual([a.correlationId]);
    queue.fulfillRequest({ correlationId: a.correlationId, payload: null, size: 0 });
    expect(sent).toEqual([a.correlationId, b.correlationId]);
    queue.fulfillRequest({ correlationId: b.correlationId, payload: null, size: 0 });
    queue.fulfillRequest({ correlationId: c.correlationId, payload: null, size: 0 });
    await Promise.all([a.done, b.done, c.done]);
    expect(sent).toEqual([a.correlationId, b.correlationId, c.correlationId]);
    // The check armed while b and c waited (10 ms) fires once, finds nothing waiting and arms no other.
    await delay(50);
    expect(queue.throttleCheckTimeoutId).toBeNull();
    queue.destroy();
  });

  it('is applied once however often it is called', () => {
    const patched = RequestQueue.prototype.scheduleCheckPendingRequests;
    stopIdleQueueChecks();
    expect(RequestQueue.prototype.scheduleCheckPendingRequests).toBe(patched);
  });
});
