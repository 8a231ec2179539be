import pg from 'pg';
import { Redis } from 'ioredis';
import { Kafka, logLevel } from 'kafkajs';
import { describeTarget, infraUrls, isCi, type InfraKind } from './env';

/** Per-service time limit of a reachability check. */
export const PROBE_TIMEOUT_MS = 3_000;

export type ProbeResult = { ok: true } | { ok: false; reason: string };

export class InfraUnavailableError extends Error {
  constructor(
    readonly kind: InfraKind,
    readonly reason: string,
  ) {
    super(
      `${kind} is not reachable at ${describeTarget(kind)}: ${reason.replace(/\.$/, '')}. ` +
        `${hint(kind)}${isCi() ? ' (CI=true: a missing service fails the tests instead of skipping them.)' : ''}`,
    );
    this.name = 'InfraUnavailableError';
  }
}

function hint(kind: InfraKind): string {
  switch (kind) {
    case 'postgres':
      return 'Start Postgres or set DATABASE_URL.';
    case 'redis':
      return 'Start Redis or set REDIS_URL.';
    case 'kafka':
      return 'Start Kafka with `bash .ci/kafka.sh start` or set KAFKA_BROKERS.';
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function probePostgres(url: string, timeoutMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => {});
  try {
    await withTimeout(
      (async () => {
        await client.connect();
        await client.query('SELECT 1');
      })(),
      timeoutMs,
      'SELECT 1',
    );
  } finally {
    await client.end().catch(() => {});
  }
}

async function probeRedis(url: string, timeoutMs: number): Promise<void> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    disconnectTimeout: 200,
  });
  let lastError: Error | undefined;
  client.on('error', (error: Error) => {
    lastError = error;
  });
  try {
    await withTimeout(
      (async () => {
        await client.connect();
        const pong = await client.ping();
        if (pong !== 'PONG') throw new Error(`PING answered ${pong}`);
      })(),
      timeoutMs,
      'PING',
    );
  } catch (error) {
    // ioredis rejects with "Connection is closed."; the socket error says why.
    throw lastError ?? error;
  } finally {
    // disconnect() on an ended client arms a timer that keeps the process alive for disconnectTimeout.
    if (client.status !== 'end') client.disconnect();
  }
}

async function probeKafka(brokers: string[], timeoutMs: number): Promise<void> {
  const kafka = new Kafka({
    clientId: 'cardlens-testing-probe',
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: timeoutMs,
    requestTimeout: timeoutMs,
    retry: { retries: 0 },
  });
  const admin = kafka.admin();
  try {
    await withTimeout(
      (async () => {
        await admin.connect();
        const cluster = await admin.describeCluster();
        if (cluster.brokers.length === 0) throw new Error('metadata lists no brokers');
      })(),
      timeoutMs,
      'metadata request',
    );
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

// Not `instanceof Error`: under jest, errors raised by Node's own modules come from another realm.
function errorMessage(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string' && error.message) {
    return error.message;
  }
  return String(error);
}

/** Checks with a real request (SELECT 1, PING, Kafka metadata) whether a service answers. Never throws. */
export async function probeInfra(kind: InfraKind, timeoutMs = PROBE_TIMEOUT_MS): Promise<ProbeResult> {
  const urls = infraUrls();
  try {
    switch (kind) {
      case 'postgres':
        await probePostgres(urls.databaseUrl, timeoutMs);
        break;
      case 'redis':
        await probeRedis(urls.redisUrl, timeoutMs);
        break;
      case 'kafka':
        await probeKafka(urls.kafkaBrokers, timeoutMs);
        break;
    }
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: errorMessage(error) };
  }
}

/** Like requireInfra, but always throws when the service is unreachable (CI or not). */
export async function assertInfra(kind: InfraKind): Promise<void> {
  const result = await probeInfra(kind);
  if (!result.ok) throw new InfraUnavailableError(kind, result.reason);
}

export function warnSkipped(kind: InfraKind, reason: string, what: string): void {
  // eslint-disable-next-line no-console -- a skipped suite must be loud in the jest output
  console.warn(
    `\n!!! SKIPPING ${what}: ${kind} is not reachable at ${describeTarget(kind)} (${reason}).\n` +
      `!!! ${hint(kind)} With CI=true this is a test failure.\n`,
  );
}

/**
 * Resolves true when the service answers. When it does not: throws InfraUnavailableError if CI=true
 * (a failure, never a skip); otherwise warns loudly and resolves false so the caller can skip.
 */
export async function requireInfra(kind: InfraKind): Promise<boolean> {
  const result = await probeInfra(kind);
  if (result.ok) return true;
  if (isCi()) throw new InfraUnavailableError(kind, result.reason);
  warnSkipped(kind, result.reason, 'tests that need it');
  return false;
}
