import { env, kafkaConnectionFields, kafkaConnectionRules, loadConfig, z } from '@cardlens/config';

export const accountsConfigSchema = z.object({
  ACCOUNTS_GRPC_HOST: z.string().default('127.0.0.1'),
  ACCOUNTS_GRPC_PORT: env.port(50051),
  BILLING_GRPC_ADDRESS: z.string().default('127.0.0.1:50052'),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
  DATABASE_POOL_SIZE: env.positiveInt(10),
  MIGRATE_ON_START: env.bool(true),
  // KAFKA_BROKERS (a standalone process needs them; the embedded mode uses its in-process bus), TLS, SASL.
  ...kafkaConnectionFields,
  GRPC_DEADLINE_MS: env.positiveInt(5000),
  LOG_LEVEL: env.logLevel(),
  OTEL_EXPORTER: env.telemetryExporter(),
  METRICS_PORT: env.metricsPort(),
}).superRefine(kafkaConnectionRules);

export type AccountsConfig = z.infer<typeof accountsConfigSchema>;

export function loadAccountsConfig(source: NodeJS.ProcessEnv = process.env): AccountsConfig {
  return loadConfig(accountsConfigSchema, source, 'accounts');
}
