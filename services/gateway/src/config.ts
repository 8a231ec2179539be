import { env, kafkaConnectionFields, kafkaConnectionRules, loadConfig, z } from '@cardlens/config';

export const gatewayConfigSchema = z.object({
  GATEWAY_PORT: env.port(8080),
  GATEWAY_HOST: z.string().default('127.0.0.1'),
  /** Public base URL, used in problem `type` URLs, docsUrl and links. */
  PUBLIC_BASE_URL: z.url().optional(),
  ACCOUNTS_GRPC_ADDRESS: z.string().default('127.0.0.1:50051'),
  BILLING_GRPC_ADDRESS: z.string().default('127.0.0.1:50052'),
  SCANS_GRPC_ADDRESS: z.string().default('127.0.0.1:50053'),
  GRADING_GRPC_ADDRESS: z.string().default('127.0.0.1:50054'),
  /** Redis for rate limits; absent = in-memory limits (embedded mode, single process only). */
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// URL').optional(),
  /** Express "trust proxy": number of proxy hops in front of the gateway (0 = use the socket address). */
  TRUST_PROXY_HOPS: env.int(0),
  /** Prefix of the rate-limit keys in Redis (lets tests and several deployments share one Redis). */
  RATE_LIMIT_KEY_PREFIX: z.string().default('cl:rl'),
  RATE_LIMIT_PER_KEY_PER_MINUTE: env.positiveInt(60),
  RATE_LIMIT_REGISTRATION_ATTEMPTS_PER_HOUR: env.positiveInt(5),
  RATE_LIMIT_NEW_AGENTS_PER_DAY: env.positiveInt(3),
  RATE_LIMIT_OPEN_PER_MINUTE: env.positiveInt(120),
  /** Downstream gRPC deadline for ordinary calls. */
  GRPC_DEADLINE_MS: env.positiveInt(5000),
  /**
   * How long the gateway remembers which agent an API key belongs to (0 turns it off). A key revoked or disabled
   * in accounts stops working within this time; unknown keys are never remembered.
   */
  AUTH_CACHE_TTL_MS: env.int(10000).pipe(z.number().int().min(0).max(300000)),
  /**
   * The longest the gateway reports a remembered balance (X-Credits-Remaining of reads) without hearing of a change
   * (0 turns the copy off). Billing announces every ledger entry on the bus and the gateway forgets the agent's
   * balance then, so this only bounds staleness while announcements are not arriving. Without the bus (no
   * KAFKA_BROKERS in its own process) the gateway keeps no copy.
   */
  BILLING_VIEW_TTL_MS: env.int(10000).pipe(z.number().int().min(0).max(300000)),
  // The bus, for billing's balance announcements: KAFKA_BROKERS (the embedded mode hands in its in-process bus),
  // TLS, SASL.
  ...kafkaConnectionFields,
  /** Deadline of CreateScan: it waits for the enqueue and for a concurrent request with the same Idempotency-Key. */
  SCAN_CREATE_DEADLINE_MS: env.positiveInt(30000),
  /**
   * Deadline of GradeCard: the grade's own 60 s budget plus transfer. When it passes the client gets a 503, and the
   * grade still finishes and is committed or refunded by the grading service.
   */
  GRADE_DEADLINE_MS: env.positiveInt(63000),
  /** Total time budget for downloading one scan image URL (resolution, connection, redirects and body). */
  IMAGE_FETCH_TIMEOUT_MS: env.positiveInt(10000),
  /**
   * TEST-ONLY: lets image URLs resolve to loopback (127.0.0.0/8, ::1) so tests can serve images locally.
   * Never enable it in a deployment: it opens the image fetcher to services on the gateway's own host.
   */
  IMAGE_FETCH_ALLOW_LOOPBACK: env.bool(false),
  /** Idle or half-sent request headers are closed after this long (slowloris). */
  HTTP_HEADERS_TIMEOUT_MS: env.positiveInt(10000),
  /** The whole request (headers and body) must arrive within this long; a body trickled slowly is cut off (408). */
  HTTP_REQUEST_TIMEOUT_MS: env.positiveInt(60000),
  /** Idle keep-alive connections close after this long: keep it above the load balancer's idle timeout (60 s). */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: env.positiveInt(65000),
  LOG_LEVEL: env.logLevel(),
  OTEL_EXPORTER: env.telemetryExporter(),
  METRICS_PORT: env.metricsPort(),
}).superRefine(kafkaConnectionRules);

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export function loadGatewayConfig(source: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return loadConfig(gatewayConfigSchema, source, 'gateway');
}
