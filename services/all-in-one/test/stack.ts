import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { KafkaBus, type Bus } from '@cardlens/bus';
import { createDatabase, type Database } from '@cardlens/db';
import {
  createTestDatabase,
  deleteRedisKeys,
  deleteTopicsWithPrefix,
  expectMatchesOpenApi,
  infraUrls,
  uniqueRedisPrefix,
  uniqueTopicPrefix,
  type TestDatabase,
} from '@cardlens/testing';
import { startEmbedded, type Embedded } from '../src/embedded';

export type StackMode = 'embedded' | 'infra';

/** The valuation service's test catalog (a sample of the shared catalogs). */
const TEST_CATALOG_DIR = fileURLToPath(new URL('../../valuation/test/fixtures/catalog', import.meta.url));
/** Real TCGplayer and PriceCharting rows of the test catalog's cards (the full snapshot is for `npm start`). */
const TEST_PRICES_DIR = fileURLToPath(new URL('../../valuation/test/fixtures/prices', import.meta.url));

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: unknown;
  json: Record<string, unknown>;
}

export interface RequestOptions {
  body?: unknown;
  rawBody?: string;
  /** multipart/form-data (fetch sets the boundary). */
  form?: FormData;
  headers?: Record<string, string>;
  /** Client address as seen through the (trusted) proxy hop, so tests can act as different callers. */
  ip?: string;
  /** For routes/methods the API does not have: the document cannot describe them, so only the problem shape is checked. */
  undocumented?: boolean;
}

export interface Stack {
  mode: StackMode;
  baseUrl: string;
  /** The bus the services use: in-process when embedded, the real Kafka broker (own topic namespace) on infra. */
  bus: Bus;
  /** For processes started beside the stack (infra): its database, brokers and topic namespace. */
  infraEnv: Record<string, string>;
  /** The services' loopback gRPC ports (the gateway's HTTP port too). */
  ports: Embedded['ports'];
  /** The grading service's temporary photo area. */
  gradingTempDir: string;
  /** The stack's database (the e2e tests read ledgers and counters from it). */
  database: Database;
  /** The scans service's blob folder: the test's BLOB_DIR, else a fresh temporary one removed on stop. */
  blobDir: string;
  /** Calls the API and checks the response (status, content type, body, headers) against the OpenAPI document. */
  call(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  stop(): Promise<void>;
}

/**
 * The whole system in this process, through HTTP → gateway → gRPC → services:
 * - embedded: an in-memory PGlite and in-memory rate limits (the `npm start` defaults);
 * - infra: a fresh database on the real Postgres, rate limits on the real Redis and the real Kafka broker (CI).
 */
export async function startStack(
  mode: StackMode,
  env: Record<string, string> = {},
  options: {
    gradingInferenceAddress?: string;
    /** infra: another broker than the shared one (a test's private Kafka). */
    kafkaBrokers?: string[];
    /** infra: another Redis than the shared one (an unreachable one, for an outage). */
    redisUrl?: string;
  } = {},
): Promise<Stack> {
  let testDb: TestDatabase | undefined;
  let database: Database;
  let redisPrefix: string | undefined;
  let topicPrefix: string | undefined;
  let bus: Bus | undefined;
  const logger = pino({ level: process.env.LOG_LEVEL ?? 'silent' });
  if (mode === 'infra') {
    testDb = await createTestDatabase({ label: 'e2e' });
    database = await createDatabase({ kind: 'postgres', url: testDb.url });
    redisPrefix = uniqueRedisPrefix('e2e');
    topicPrefix = uniqueTopicPrefix('e2e');
    bus = new KafkaBus({ brokers: options.kafkaBrokers ?? infraUrls().kafkaBrokers, clientId: 'cardlens-e2e', topicPrefix, logger });
  } else {
    database = await createDatabase({ kind: 'pglite', dataDir: 'memory://' });
  }
  // Each stack's blobs apart (two stacks on fresh databases both have a scan 1), unless the test names a folder.
  const ownBlobDir = env.BLOB_DIR === undefined;
  const blobDir = env.BLOB_DIR ?? mkdtempSync(path.join(tmpdir(), 'cardlens-e2e-blobs-'));
  const removeOwnBlobDir = () => (ownBlobDir ? rmSync(blobDir, { recursive: true, force: true }) : undefined);
  let embedded: Embedded;
  try {
    embedded = await startEmbedded({
      database,
      // A few hundred catalog cards, every one with sample sales (the full catalog takes ~25 s to load), and the
      // real prices of those of them TCGplayer prices.
      env: { GATEWAY_PORT: '0', TRUST_PROXY_HOPS: '1', BLOB_DIR: blobDir, CATALOG_DIR: TEST_CATALOG_DIR, PRICES_DIR: TEST_PRICES_DIR, SAMPLE_SALES_SHARE: '1', ...(redisPrefix ? { RATE_LIMIT_KEY_PREFIX: redisPrefix } : {}), ...env },
      logger,
      ...(mode === 'infra' ? { redisUrl: options.redisUrl ?? infraUrls().redisUrl } : {}),
      ...(bus ? { bus } : {}),
      ...(options.gradingInferenceAddress ? { gradingInferenceAddress: options.gradingInferenceAddress } : {}),
    });
  } catch (error) {
    await database.close();
    await testDb?.drop();
    removeOwnBlobDir();
    throw error;
  }

  return {
    mode,
    baseUrl: embedded.baseUrl,
    bus: embedded.bus,
    infraEnv: testDb && topicPrefix ? { DATABASE_URL: testDb.url, KAFKA_BROKERS: (options.kafkaBrokers ?? infraUrls().kafkaBrokers).join(','), KAFKA_TOPIC_PREFIX: topicPrefix } : {},
    ports: embedded.ports,
    gradingTempDir: embedded.gradingTempDir,
    database,
    blobDir,
    async call(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.ip) headers['X-Forwarded-For'] = options.ip;
      let body: string | FormData | undefined = options.form ?? options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['Content-Type'] ??= 'application/json';
      }
      const response = await fetch(embedded.baseUrl + path, { method, headers, ...(body !== undefined ? { body } : {}) });
      const contentType = response.headers.get('content-type') ?? '';
      const binary = contentType.startsWith('image/');
      const text = binary ? '' : await response.text();
      const parsed: unknown = binary ? Buffer.from(await response.arrayBuffer()) : contentType.includes('json') && text ? JSON.parse(text) : text;
      if (options.undocumented) {
        expectProblemShape(contentType, parsed);
      } else if (!path.startsWith('/api-docs')) {
        expectMatchesOpenApi(method, path, response.status, contentType.split(';')[0]!.trim(), parsed, response.headers);
      }
      return { status: response.status, headers: response.headers, body: parsed, json: (typeof parsed === 'object' && parsed ? parsed : {}) as Record<string, unknown> };
    },
    async stop() {
      await embedded.stop();
      await database.close();
      removeOwnBlobDir();
      await testDb?.drop();
      if (redisPrefix) await deleteRedisKeys(redisPrefix);
      if (topicPrefix && !options.kafkaBrokers) await deleteTopicsWithPrefix(topicPrefix);
    },
  };
}

/** RFC 9457 as this API promises it: problem+json with type, title, status, detail and code. */
function expectProblemShape(contentType: string, body: unknown): void {
  if (!contentType.startsWith('application/problem+json')) throw new Error(`expected application/problem+json, got ${contentType}`);
  const problem = body as Record<string, unknown>;
  for (const [member, type] of [['type', 'string'], ['title', 'string'], ['status', 'number'], ['detail', 'string'], ['code', 'string']] as const) {
    if (typeof problem[member] !== type) throw new Error(`problem member ${member} should be a ${type}: ${JSON.stringify(body)}`);
  }
}
