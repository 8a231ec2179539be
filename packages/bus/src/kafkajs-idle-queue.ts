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
import RequestQueue from 'kafkajs/src/network/requestQueue/index.js';

/** The version whose RequestQueue this was read against; the tests fail when the installed one differs. */
export const KAFKAJS_VERSION_PATCHED = '2.2.4';

const PATCHED = Symbol.for('cardlens.kafkajs.idleQueueChecks');

type QueueWithPatch = typeof RequestQueue.prototype & { [PATCHED]?: true };

/** Stops the idle checks on every kafkajs connection made from now on and on those already open. Idempotent. */
export function stopIdleQueueChecks(): void {
  const proto = RequestQueue.prototype as QueueWithPatch;
  if (proto[PATCHED]) return;
  const schedule = proto.scheduleCheckPendingRequests;
  proto.scheduleCheckPendingRequests = function scheduleWhilePending(this: InstanceType<typeof RequestQueue>) {
    if (this.pending.length === 0) return;
    schedule.call(this);
  };
  proto[PATCHED] = true;
}
