import os from 'node:os';
import path from 'node:path';
import { env, loadConfig, z } from '@cardlens/config';

export const gradingConfigSchema = z.object({
  GRADING_GRPC_HOST: z.string().default('127.0.0.1'),
  GRADING_GRPC_PORT: env.port(50054),
  BILLING_GRPC_ADDRESS: z.string().default('127.0.0.1:50052'),
  INFERENCE_GRPC_ADDRESS: z.string().default('127.0.0.1:50056'),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
  DATABASE_POOL_SIZE: env.positiveInt(10),
  MIGRATE_ON_START: env.bool(true),
  /** Deadline of the billing calls (reserve, commit, refund). */
  GRPC_DEADLINE_MS: env.positiveInt(5000),
  /**
   * The request budget of POST /v1/grades (the spec's 60 s): the whole grade, reservation to commit, fits in it.
   * A grade not finished within it is refunded (grader_busy).
   */
  GRADE_BUDGET_MS: env.positiveInt(60000),
  /**
   * Where photos live while they are analysed (deleted when the analysis ends). The chart mounts a memory-backed
   * emptyDir here, so photos never reach a disk.
   */
  GRADING_TEMP_DIR: z.string().default(path.join(os.tmpdir(), 'cardlens-grading')),
  /** How often grades left in flight by a stopped process, and outcomes billing has not been told, are settled. */
  GRADE_SETTLE_INTERVAL_MS: env.positiveInt(15000),
  /** Lifetime of a report share link (issued with every completed grade; an agent may ask for 1-365 days). */
  REPORT_LINK_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  /** The sweeper removes anything in the temp area older than this (left by a crash). */
  GRADING_TEMP_MAX_AGE_SECONDS: env.positiveInt(300),
  LOG_LEVEL: env.logLevel(),
  OTEL_EXPORTER: env.telemetryExporter(),
  METRICS_PORT: env.metricsPort(),
});

export type GradingConfig = z.infer<typeof gradingConfigSchema>;

export function loadGradingConfig(source: NodeJS.ProcessEnv = process.env): GradingConfig {
  return loadConfig(gradingConfigSchema, source, 'grading');
}
