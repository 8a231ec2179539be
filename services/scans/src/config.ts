import { blobStoreConfigSchema } from '@cardlens/blob-store';
import { env, kafkaConnectionFields, kafkaConnectionRules, loadConfig, z } from '@cardlens/config';

const scansSettings = z.object({
  SCANS_GRPC_HOST: z.string().default('127.0.0.1'),
  SCANS_GRPC_PORT: env.port(50053),
  BILLING_GRPC_ADDRESS: z.string().default('127.0.0.1:50052'),
  INFERENCE_GRPC_ADDRESS: z.string().default('127.0.0.1:50056'),
  VALUATION_GRPC_ADDRESS: z.string().default('127.0.0.1:50055'),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
  DATABASE_POOL_SIZE: env.positiveInt(10),
  MIGRATE_ON_START: env.bool(true),
  // KAFKA_BROKERS (a standalone process needs them; the embedded mode uses its in-process bus), TLS, SASL.
  ...kafkaConnectionFields,
  /** Kafka consumer session timeout: how soon a dead worker's jobs go to the others (broker minimum 6 s). */
  KAFKA_SESSION_TIMEOUT_MS: env.positiveInt(30000),
  GRPC_DEADLINE_MS: env.positiveInt(5000),
  /** How long POST /v1/scans waits for the scan job to be accepted by the bus before refunding (enqueue_failed). */
  ENQUEUE_TIMEOUT_MS: env.positiveInt(5000),
  /** How long a request waits for a concurrent request with the same Idempotency-Key to finish. */
  IDEMPOTENCY_WAIT_MS: env.positiveInt(15000),
  IDEMPOTENCY_TTL_HOURS: env.positiveInt(24),
  /**
   * How long the photos and the grading overlay of a finished scan are kept (days after it finished); the
   * settlement loop then removes them. The result itself stays. 0 keeps them forever.
   */
  SCAN_BLOB_RETENTION_DAYS: z.coerce.number().int().min(0).max(3650).default(30),
  /** Lifetime of a report share link (issued with every completed scan; an agent may ask for 1-365 days). */
  REPORT_LINK_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  /** Scans left pending (a crash between the debit and the queueing) are settled after this many seconds. */
  STALE_PENDING_SECONDS: env.positiveInt(120),
  /** How often pending scans left by a crash, unrefunded scans, expired keys and stuck queued scans are looked for. */
  SCAN_SETTLE_INTERVAL_MS: env.positiveInt(30000),
  /**
   * A scan still queued this long (no worker started it: its job was lost with a broker, or is stuck) is queued
   * again, SCAN_QUEUE_REQUEUES times; then it fails visibly and its credits are refunded.
   */
  SCAN_QUEUED_TIMEOUT_SECONDS: env.positiveInt(600),
  SCAN_QUEUE_REQUEUES: z.coerce.number().int().min(0).max(10).default(2),
  /** Deadline of the inference call (the whole photo analysis) and of the valuation calls. */
  INFERENCE_DEADLINE_MS: env.positiveInt(60000),
  VALUATION_DEADLINE_MS: env.positiveInt(15000),
  /**
   * Analyses a scan worker sends to the inference service at once: as many as the engine runs side by side for
   * this worker (the embedded mode sets it to the inference service's INFERENCE_CONCURRENCY). Jobs beyond it
   * wait in the worker: a fair share per account, then first come, first served (domain/engine-turns.ts).
   */
  SCAN_ANALYSES_IN_FLIGHT: env.positiveInt(2),
  /** Scan jobs a worker takes from each bus partition at once, to wait for their turn in that order. */
  SCAN_JOBS_PER_PARTITION: z.coerce.number().int().min(1).max(256).default(16),
  /** Deliveries of one scan job before it is marked failed (transient errors are retried with backoff). */
  SCAN_JOB_ATTEMPTS: env.positiveInt(4),
  /**
   * Queue every queued or processing scan again at start. For the embedded mode, whose in-process bus loses
   * undelivered jobs when the process ends; Kafka keeps them, so production leaves it off.
   */
  REQUEUE_INTERRUPTED_SCANS: env.bool(false),
  /** Whether this process also runs the scan worker (the embedded mode; the chart runs workers apart). */
  SCAN_WORKER_ENABLED: env.bool(true),
  SCAN_WORKER_HEALTH_HOST: z.string().default('127.0.0.1'),
  SCAN_WORKER_HEALTH_PORT: env.port(50057),
  LOG_LEVEL: env.logLevel(),
  OTEL_EXPORTER: env.telemetryExporter(),
  METRICS_PORT: env.metricsPort(),
}).superRefine(kafkaConnectionRules);

/** The scans service's settings plus the blob store's (BLOB_STORE, BLOB_DIR, S3_*), validated together. */
export const scansConfigSchema = z.intersection(scansSettings, blobStoreConfigSchema);

export type ScansConfig = z.infer<typeof scansConfigSchema>;

export function loadScansConfig(source: NodeJS.ProcessEnv = process.env): ScansConfig {
  return loadConfig(scansConfigSchema, source, 'scans');
}
