// What both bus implementations share: trace propagation across the bus, and the per-message
// retry loop whose outcome decides between "commit" and "dead-letter".
import { randomUUID } from 'node:crypto';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  DEFAULT_RETRY,
  DLQ_HEADERS,
  MESSAGE_ID_HEADER,
  type BusMessage,
  type ReceivedMessage,
  type Headers,
  type MessageHandler,
  type OutgoingMessage,
  type RetryPolicy,
} from './types';

const tracer = trace.getTracer('@cardlens/bus');

export interface PreparedMessage {
  id: string;
  key: string;
  value: Buffer;
  headers: Headers;
}

/** Copies the messages (a caller may reuse its buffers) and stamps id and trace context headers. */
function prepare(messages: OutgoingMessage[]): PreparedMessage[] {
  return messages.map((m) => {
    const id = m.id ?? randomUUID();
    const headers: Headers = {};
    propagation.inject(context.active(), headers);
    Object.assign(headers, m.headers, { [MESSAGE_ID_HEADER]: id });
    return { id, key: m.key, value: Buffer.from(m.value), headers };
  });
}

/** Runs `send` inside a producer span whose context travels in the messages' headers. */
export function publishTraced(
  topic: string,
  messages: OutgoingMessage[],
  send: (prepared: PreparedMessage[]) => Promise<void>,
): Promise<void> {
  return tracer.startActiveSpan(
    `${topic} publish`,
    { kind: SpanKind.PRODUCER, attributes: { 'messaging.destination.name': topic, 'messaging.batch.message_count': messages.length } },
    async (span) => {
      try {
        await send(prepare(messages));
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: shortError(err) });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

/** Runs the handler in a consumer span parented by the trace context the producer put in the headers. */
function handleTraced(message: BusMessage, groupId: string, handler: MessageHandler): Promise<void> {
  const parent = propagation.extract(ROOT_CONTEXT, message.headers);
  const attributes = {
    'messaging.destination.name': message.topic,
    'messaging.consumer.group.name': groupId,
    'messaging.message.id': message.id,
    'cardlens.delivery.attempt': message.attempt,
  };
  return tracer.startActiveSpan(`${message.topic} process`, { kind: SpanKind.CONSUMER, attributes }, parent, async (span) => {
    try {
      await handler(message);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: shortError(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

export class DeliveryAborted extends Error {
  constructor() {
    super('delivery abandoned because the consumer is stopping');
  }
}

export function retryPolicy(overrides: Partial<RetryPolicy> | undefined): RetryPolicy {
  const policy = { ...DEFAULT_RETRY, ...overrides };
  if (!Number.isInteger(policy.attempts) || policy.attempts < 1) throw new Error('retry.attempts must be an integer >= 1');
  return policy;
}

/** Exponential backoff with jitter (half fixed, half random) so retrying consumers do not move in lockstep. */
export function backoffMs(policy: RetryPolicy, failedAttempt: number): number {
  const ceiling = Math.min(policy.maxBackoffMs, policy.initialBackoffMs * 2 ** (failedAttempt - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** Waits `ms`, or less if the signal aborts (or already has). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

/**
 * Delivers one message with retries. Resolves `undefined` when the handler succeeded, or the last
 * error once the attempts are used up (the caller dead-letters it); both mean "commit the offset".
 * Rejects with DeliveryAborted when stopping mid-way, so the offset stays uncommitted and the
 * message is redelivered later.
 */
export async function deliverWithRetry(
  message: ReceivedMessage,
  groupId: string,
  handler: MessageHandler,
  policy: RetryPolicy,
  signal: AbortSignal,
  heartbeat: () => Promise<void> = async () => {},
): Promise<unknown> {
  for (let attempt = 1; ; attempt++) {
    if (signal.aborted) throw new DeliveryAborted();
    try {
      await handleTraced({ ...message, attempt, signal, heartbeat }, groupId, handler);
      return undefined;
    } catch (err) {
      // A handler that gave up because the consumer is stopping has not failed: its message is delivered again.
      if (signal.aborted) throw new DeliveryAborted();
      if (attempt >= policy.attempts) return err ?? new Error('handler failed');
      // Kafka: tell the group coordinator we are alive, or it reassigns the partition mid-retry.
      await heartbeat();
      await sleep(backoffMs(policy, attempt), signal);
      await heartbeat();
    }
  }
}

/** First line of the error message, bounded: headers must not carry stack traces or payload dumps. */
export function shortError(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return (text.split('\n')[0] ?? '').slice(0, 200);
}

export function deadLetterHeaders(message: ReceivedMessage, groupId: string, err: unknown, attempts: number): Headers {
  return {
    ...message.headers,
    [DLQ_HEADERS.error]: shortError(err),
    [DLQ_HEADERS.attempts]: String(attempts),
    [DLQ_HEADERS.sourceTopic]: message.topic,
    [DLQ_HEADERS.consumerGroup]: groupId,
    [DLQ_HEADERS.failedAt]: new Date().toISOString(),
  };
}
