// Transactional outbox and idempotent consumption. A state change and the message announcing it are
// written in one database transaction (enqueueOutbox); OutboxRelay publishes the rows afterwards.
// A relay crash after publishing but before marking rows republishes them, so delivery is
// at-least-once, and idempotentConsumer turns that into exactly-once effects by recording the
// message id (the outbox row id) in the same transaction as the handler's writes.
import { randomUUID } from 'node:crypto';
import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import { scrapedGauge } from '@cardlens/telemetry';
import { sleep } from './delivery';
import { silentLogger, type Bus, type BusLogger, type BusMessage, type Headers, type MessageHandler, type OutgoingMessage } from './types';

/** What enqueueOutbox and idempotentConsumer need from a Prisma client or interactive-transaction client. */
export interface RawSql {
  $executeRawUnsafe(query: string, ...values: unknown[]): PromiseLike<number>;
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T>;
}

/** Any generated PrismaClient fits; Tx is inferred as that client's transaction type. */
export interface TransactionRunner<Tx extends RawSql = RawSql> {
  $transaction<R>(fn: (tx: Tx) => Promise<R>, options?: { maxWait?: number; timeout?: number }): PromiseLike<R>;
}

export interface BusTables {
  /** e.g. `"billing"."outbox"` */
  outbox: string;
  /** e.g. `"billing"."processed_messages"` */
  processedMessages: string;
}

/** Schema-qualified names of a service's bus tables; the schema name is checked since it is spliced into SQL. */
export function busTables(schema: string): BusTables {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name: ${schema}`);
  return { outbox: `"${schema}"."outbox"`, processedMessages: `"${schema}"."processed_messages"` };
}

export interface OutboxMessage extends OutgoingMessage {
  topic: string;
}

/**
 * Inserts the message inside the caller's transaction (`prisma.$transaction(async (tx) => ...)`), so
 * it is published if and only if the transaction commits. The current trace context goes into the
 * headers so the consumer continues the trace of the request that caused the change.
 * `holdMs` keeps the relay off the row that long (created_at is set that far ahead: the relay publishes rows
 * whose created_at has passed), for a caller that publishes it itself with publishOutboxRowNow and falls back
 * to the relay only if it dies meanwhile.
 * Returns the message id.
 */
export async function enqueueOutbox(tx: RawSql, table: string, message: OutboxMessage, options: { holdMs?: number } = {}): Promise<string> {
  const id = message.id ?? randomUUID();
  const headers: Headers = {};
  propagation.inject(context.active(), headers);
  Object.assign(headers, message.headers);
  const holdMs = Math.max(0, Math.floor(options.holdMs ?? 0));
  // clock_timestamp() rather than the column default now() (the transaction's start time), so rows
  // enqueued by one transaction keep their order.
  await tx.$executeRawUnsafe(
    `INSERT INTO ${table} (id, topic, key, payload, headers, created_at)
     VALUES ($1::uuid, $2, $3, $4, $5::jsonb, clock_timestamp() + make_interval(secs => $6::int / 1000.0))`,
    id,
    message.topic,
    message.key,
    Buffer.from(message.value),
    JSON.stringify(headers),
    holdMs,
  );
  return id;
}

export interface OutboxRelayOptions {
  prisma: TransactionRunner;
  /** The outbox table, schema-qualified (busTables(schema).outbox). */
  table: string;
  bus: Bus;
  logger?: BusLogger;
  batchSize?: number;
  /** Idle wait between polls; nudge() cuts it short. */
  pollIntervalMs?: number;
  /** Database transaction timeout, which bounds one batch's publishing. */
  transactionTimeoutMs?: number;
}

interface OutboxRow {
  id: string;
  topic: string;
  key: string;
  payload: Uint8Array;
  headers: Headers;
}

/**
 * Publishes unpublished outbox rows in created order. Each batch is locked with FOR UPDATE SKIP
 * LOCKED, published, and marked in one transaction, so concurrent relays take disjoint batches, and a
 * failed publish rolls back and leaves the rows for the next round. Across concurrent relays, batches
 * may be published out of order; within one relay order is kept.
 */
export class OutboxRelay {
  private readonly logger: BusLogger;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private running?: Promise<void>;
  private stopping = new AbortController();
  private wake = new AbortController(); // aborted by nudge() and stop()

  constructor(private readonly options: OutboxRelayOptions) {
    this.logger = options.logger ?? silentLogger;
    this.batchSize = options.batchSize ?? 100;
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1) throw new Error('batchSize must be a positive integer');
  }

  private unregisterGauges?: () => void;

  start(): void {
    // Outbox backlog for Prometheus: rows written but not yet on the bus, and how long the oldest has waited.
    const { prisma, table } = this.options;
    const label = table.replaceAll('"', '');
    if (!this.unregisterGauges) {
      const backlog = () => prisma.$transaction((tx) => Promise.resolve(tx.$queryRawUnsafe<Array<{ pending: number; oldest: number | null }>>(
        `SELECT count(*)::int AS pending, extract(epoch FROM clock_timestamp() - min(created_at))::float8 AS oldest FROM ${table} WHERE published_at IS NULL`,
      )));
      const rows = scrapedGauge('cardlens_outbox_pending_rows', 'Outbox rows not yet published to the bus, by outbox table.', ['table'], async (set) => {
        set({ table: label }, (await backlog())[0]?.pending ?? 0);
      });
      const age = scrapedGauge('cardlens_outbox_oldest_pending_age_seconds', 'Age of the oldest unpublished outbox row (0 when none), by outbox table.', ['table'], async (set) => {
        set({ table: label }, (await backlog())[0]?.oldest ?? 0);
      });
      this.unregisterGauges = () => { rows(); age(); };
    }
    if (this.running) return;
    this.stopping = new AbortController();
    this.running = this.loop();
  }

  /** Call after committing a transaction that enqueued messages, to publish them without waiting for the poll. */
  nudge(): void {
    this.wake.abort();
  }

  /** Lets the batch in progress finish (or roll back), then returns. */
  async stop(): Promise<void> {
    this.unregisterGauges?.();
    this.unregisterGauges = undefined;
    this.stopping.abort();
    this.wake.abort();
    await this.running;
    this.running = undefined;
  }

  /** Publishes one batch; returns how many rows it published. */
  async publishBatch(): Promise<number> {
    const { prisma, table, bus } = this.options;
    return prisma.$transaction(
      async (tx) => {
        const rows = await tx.$queryRawUnsafe<OutboxRow[]>(
          `SELECT id::text AS id, topic, key, payload, headers FROM ${table}
           WHERE published_at IS NULL AND created_at <= clock_timestamp() ORDER BY created_at, id LIMIT ${this.batchSize} FOR UPDATE SKIP LOCKED`,
        );
        if (rows.length === 0) return 0;
        // Publish each row inside the trace context of the request that wrote it, so the publish span (and
        // the kafkajs instrumentation, which injects from the active context) continue that trace rather
        // than the relay's. Consecutive rows of one topic and trace go out together; created order is kept.
        const runs: { topic: string; traceparent: string | undefined; headers: Headers; messages: OutgoingMessage[] }[] = [];
        for (const row of rows) {
          const last = runs.at(-1);
          const message = { id: row.id, key: row.key, value: row.payload, headers: row.headers };
          if (last && last.topic === row.topic && last.traceparent === row.headers.traceparent) last.messages.push(message);
          else runs.push({ topic: row.topic, traceparent: row.headers.traceparent, headers: row.headers, messages: [message] });
        }
        for (const run of runs) {
          await context.with(propagation.extract(ROOT_CONTEXT, run.headers), () => bus.publish(run.topic, run.messages));
        }
        await tx.$executeRawUnsafe(
          `UPDATE ${table} SET published_at = now() WHERE id = ANY($1::uuid[])`,
          rows.map((r) => r.id),
        );
        return rows.length;
      },
      { timeout: this.options.transactionTimeoutMs ?? 30_000 },
    );
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (!this.stopping.signal.aborted) {
      // Renewed before the batch, so a nudge arriving while it runs skips the wait below.
      this.wake = new AbortController();
      let published = 0;
      try {
        published = await this.publishBatch();
        failures = 0;
      } catch (err) {
        failures++;
        this.logger.warn({ err, failures }, 'outbox relay batch failed; rows stay for the next round');
      }
      if (published === this.batchSize) continue; // more may be waiting
      // After a failure, back off (nudges ignored) rather than hammer a broker or database that is down.
      const delay = failures > 0 ? Math.min(30_000, this.pollIntervalMs * 2 ** failures) : this.pollIntervalMs;
      await sleep(delay, failures > 0 ? this.stopping.signal : this.wake.signal);
    }
  }
}

/**
 * Wraps a handler so it runs at most once per message id and consumer group, in effect: the
 * processed_messages insert and the handler's writes (through `tx`) commit together, and an id
 * already recorded is acknowledged without calling the handler. A handler that throws rolls both
 * back, so the bus redelivers it.
 */
export function idempotentConsumer<Tx extends RawSql>(
  prisma: TransactionRunner<Tx>,
  table: string,
  groupId: string,
  handler: (message: BusMessage, tx: Tx) => Promise<void>,
): MessageHandler {
  return async (message) => {
    await prisma.$transaction(async (tx) => {
      // A concurrent duplicate blocks on the primary key until this transaction ends, then inserts nothing.
      const inserted = await tx.$executeRawUnsafe(
        `INSERT INTO ${table} (consumer_group, message_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
        groupId,
        message.id,
      );
      if (inserted === 0) return;
      await handler(message, tx);
    });
  };
}

export interface PublishNowOptions<Tx extends RawSql> {
  prisma: TransactionRunner<Tx> & RawSql;
  /** The outbox table, schema-qualified (busTables(schema).outbox). */
  table: string;
  bus: Bus;
  /** The row to publish (enqueueOutbox's return value, enqueued with a holdMs above timeoutMs). */
  id: string;
  /** How long the bus may take to accept the message. */
  timeoutMs: number;
  /**
   * Called in the same transaction when the bus refused or timed out: the row is deleted by then, so the
   * relay will never publish it, and the caller undoes the state change the message announced.
   */
  onFailure(tx: Tx, error: unknown): Promise<void>;
}

/**
 * Publishes one committed outbox row right away, for a caller that must tell its client whether the message
 * was accepted (POST /v1/scans answers enqueue_failed when it was not). No database connection is held while
 * the bus is waited on (a broker outage must not drain the pool for unrelated requests): the row was enqueued
 * with a hold, so the relay leaves it alone meanwhile, and only the short bookkeeping afterwards is a
 * transaction. Returns true once the message is accepted (or was published already, by the relay after a
 * hold that ran out). A publish that outlives the timeout may still reach the bus, so consumers must ignore
 * messages whose state change was undone.
 */
export async function publishOutboxRowNow<Tx extends RawSql>(options: PublishNowOptions<Tx>): Promise<boolean> {
  const { prisma, table, bus, id, timeoutMs } = options;
  const rows = await prisma.$queryRawUnsafe<(OutboxRow & { published: boolean })[]>(
    `SELECT id::text AS id, topic, key, payload, headers, published_at IS NOT NULL AS published FROM ${table} WHERE id = $1::uuid`,
    id,
  );
  const row = rows[0];
  if (!row) throw new Error(`outbox row ${id} does not exist`);
  if (row.published) return true;
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`bus did not accept the message within ${timeoutMs} ms`)), timeoutMs);
    });
    const message = { id: row.id, key: row.key, value: row.payload, headers: row.headers };
    await Promise.race([context.with(propagation.extract(ROOT_CONTEXT, row.headers), () => bus.publish(row.topic, [message])), timeout]);
  } catch (error) {
    // Undone only if still unpublished: a relay that got to it (the hold ran out) has its outcome stand.
    const undone = await prisma.$transaction(async (tx) => {
      const deleted = await tx.$executeRawUnsafe(`DELETE FROM ${table} WHERE id = $1::uuid AND published_at IS NULL`, id);
      if (deleted === 0) return false;
      await options.onFailure(tx, error);
      return true;
    });
    return !undone;
  } finally {
    clearTimeout(timer);
  }
  await prisma.$executeRawUnsafe(`UPDATE ${table} SET published_at = now() WHERE id = $1::uuid AND published_at IS NULL`, id);
  return true;
}
