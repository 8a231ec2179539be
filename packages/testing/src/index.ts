/**
 * @cardlens/testing: real-infrastructure helpers for tests (Postgres, Redis, Kafka).
 *
 * Settings: DATABASE_URL, REDIS_URL, KAFKA_BROKERS (comma-separated), defaulting to the local services
 * (postgresql://postgres@127.0.0.1:5432/postgres, redis://127.0.0.1:6379, 127.0.0.1:9092; start Kafka with
 * `bash .ci/kafka.sh start`). With CI=true a missing service is a test FAILURE, never a skip.
 *
 * Two ways to guard a suite (both work in jest's ESM mode):
 *
 * 1. describeWithInfra (synchronous, no top-level await):
 *
 *      describeWithInfra(['postgres', 'kafka'], 'outbox relay', () => {
 *        let db: TestDatabase;
 *        beforeAll(async () => { db = await createTestDatabase(); });
 *        afterAll(async () => { await db?.drop(); });
 *        it('...', async () => { ... });
 *      });
 *
 *    At collection time it probes the TCP ports synchronously (one child process, ~50 ms). Locally, a
 *    refused port turns the block into describe.skip with a loud warning. Otherwise it registers a
 *    beforeAll, ahead of the block's own hooks, that checks each service with a real request (SELECT 1,
 *    PING, Kafka metadata) and throws when one does not answer. In CI the port probe is not consulted:
 *    the beforeAll fails every test of the block with InfraUnavailableError.
 *
 * 2. requireInfra with top-level await (jest ESM test files may use it):
 *
 *      const hasRedis = await requireInfra('redis');   // throws when CI=true and Redis is down
 *      (hasRedis ? describe : describe.skip)('rate limiter', () => { ... });
 *
 * Isolation: createTestDatabase() gives each suite its own database; uniqueTopicPrefix() and
 * uniqueRedisPrefix() give topic/group names and Redis keys no other run uses (clean up with
 * deleteTopicsWithPrefix / deleteRedisKeys).
 *
 * FakeStripeServer is a FAKE of the Stripe API endpoints billing calls, used only in tests of the code around
 * Stripe (which cannot be reached from here, and which tests must never call).
 *
 * describeWithBrowser / launchChromium drive Debian's chromium (CHROMIUM_PATH overrides) through playwright-core;
 * like the services, a missing browser skips locally and fails with CI=true.
 *
 * The module does not import @jest/globals at runtime (describeWithInfra takes describe/beforeAll from the
 * globals jest injects), so the non-jest helpers also work from scripts run with tsx.
 */
export { infraUrls, isCi, INFRA_KINDS, type InfraKind, type InfraUrls } from './env';
export { requireInfra, assertInfra, probeInfra, InfraUnavailableError, PROBE_TIMEOUT_MS, type ProbeResult } from './probe';
export { unreachableKindsSync } from './sync-probe';
export { describeOnPgliteAndPostgres, describeWithInfra, type OpenedSuiteDatabase, type SuiteDatabase } from './describe';
export {
  createTestDatabase,
  dropStaleTestDatabases,
  databaseUrlFor,
  STALE_TEST_DATABASE_MS,
  type TestDatabase,
} from './postgres';
export { uniqueRedisPrefix, deleteRedisKeys } from './redis';
export { uniqueTopicPrefix, deleteTopicsWithPrefix } from './kafka';
export { randomSuffix } from './ids';
export {
  createOpenApiResponseValidator,
  expectMatchesOpenApi,
  loadOpenApiDocument,
  matchPathTemplate,
  GATEWAY_OPENAPI_PATH,
  type OpenApiDocument,
  type OpenApiResponseValidator,
  type ResponseHeaders,
} from './openapi-validator';
export { FakeStripeServer, type CompletedSubscriptionCheckout, type FailureInjection, type RecordedRequest, type TokenOutcome } from './fake-stripe-server';
export { chromiumPath, describeWithBrowser, launchChromium } from './browser';
