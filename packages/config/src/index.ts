import { z } from 'zod';

/**
 * Parses a service's environment once at startup and fails fast with every problem listed.
 * Services call this from main.ts only; everything else receives the typed result.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env, serviceName = 'service'): z.infer<S> {
  const result = schema.safeParse(env);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  - ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration for ${serviceName}:\n${lines.join('\n')}`);
  }
  return result.data;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Reusable field parsers for environment variables (which are always strings). */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  int: (fallback: number) => z.coerce.number().int().default(fallback),
  positiveInt: (fallback: number) => z.coerce.number().int().positive().default(fallback),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  url: () => z.url(),
  /** A comma-separated list (e.g. Kafka brokers), trimmed; unset or empty gives undefined. */
  list: () =>
    z
      .string()
      .optional()
      .transform((v) => (v ? v.split(',').map((item) => item.trim()).filter(Boolean) : undefined)),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  telemetryExporter: () => z.enum(['otlp', 'console', 'none']).default('none'),
  /** METRICS_PORT: where GET /metrics (Prometheus) is served; unset or empty: not served. */
  metricsPort: () =>
    z
      .string()
      .optional()
      .transform((v) => (v ? Number(v) : undefined))
      .pipe(z.number().int().min(1).max(65535).optional()),
  /** Where a service keeps its data: a Postgres URL in production and CI, or the embedded PGlite folder. */
  database: () =>
    z.object({
      DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
      PGLITE_DIR: z.string().default('.data/pglite'),
    }),
};

export { z };

const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512', 'aws-msk-iam'] as const;

/**
 * Kafka connection settings, shared by every service that runs its own KafkaBus. Besides the brokers: TLS
 * (`KAFKA_SSL`, with an optional CA bundle and client certificate for mutual TLS) and SASL (`PLAIN`,
 * `SCRAM-SHA-256/512` with a user and password, or AWS MSK IAM with the pod's AWS credentials). Spread into a
 * service's schema and add `.superRefine(kafkaConnectionRules)`.
 */
export const kafkaConnectionFields = {
  /** Comma-separated brokers. A standalone process needs them; the embedded mode uses its in-process bus. */
  KAFKA_BROKERS: env.list(),
  KAFKA_TOPIC_PREFIX: z.string().default(''),
  KAFKA_SSL: env.bool(false),
  /** PEM file of the CAs that sign the brokers' certificates (default: Node's bundled CAs). */
  KAFKA_SSL_CA_FILE: z.string().min(1).optional(),
  /** Client certificate and key (PEM) for brokers that require mutual TLS. */
  KAFKA_SSL_CERT_FILE: z.string().min(1).optional(),
  KAFKA_SSL_KEY_FILE: z.string().min(1).optional(),
  KAFKA_SSL_REJECT_UNAUTHORIZED: env.bool(true),
  KAFKA_SASL_MECHANISM: z.enum(SASL_MECHANISMS).optional(),
  KAFKA_SASL_USERNAME: z.string().min(1).optional(),
  KAFKA_SASL_PASSWORD: z.string().min(1).optional(),
  /** AWS region of the MSK cluster (aws-msk-iam); credentials come from the AWS SDK's default chain. */
  KAFKA_AWS_REGION: z.string().min(1).optional(),
};

type KafkaConnectionValues = z.infer<z.ZodObject<typeof kafkaConnectionFields>>;

/** Rules between the Kafka fields: what each SASL mechanism needs, and that a client key comes with its certificate. */
export function kafkaConnectionRules(value: KafkaConnectionValues, ctx: z.RefinementCtx): void {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  const mechanism = value.KAFKA_SASL_MECHANISM;
  if (mechanism && mechanism !== 'aws-msk-iam') {
    if (!value.KAFKA_SASL_USERNAME) issue('KAFKA_SASL_USERNAME', `required with KAFKA_SASL_MECHANISM=${mechanism}`);
    if (!value.KAFKA_SASL_PASSWORD) issue('KAFKA_SASL_PASSWORD', `required with KAFKA_SASL_MECHANISM=${mechanism}`);
    if (mechanism === 'plain' && !value.KAFKA_SSL) issue('KAFKA_SSL', 'SASL PLAIN sends the password as is: set KAFKA_SSL=true');
  }
  if (mechanism === 'aws-msk-iam') {
    if (!value.KAFKA_AWS_REGION) issue('KAFKA_AWS_REGION', 'required with KAFKA_SASL_MECHANISM=aws-msk-iam');
    if (!value.KAFKA_SSL) issue('KAFKA_SSL', 'MSK IAM authentication runs over TLS: set KAFKA_SSL=true');
  }
  if (!mechanism && (value.KAFKA_SASL_USERNAME || value.KAFKA_SASL_PASSWORD)) issue('KAFKA_SASL_MECHANISM', 'required when a SASL user or password is set');
  if (Boolean(value.KAFKA_SSL_CERT_FILE) !== Boolean(value.KAFKA_SSL_KEY_FILE)) issue('KAFKA_SSL_KEY_FILE', 'KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE go together');
  if (!value.KAFKA_SSL && (value.KAFKA_SSL_CA_FILE || value.KAFKA_SSL_CERT_FILE)) issue('KAFKA_SSL', 'TLS files are set but KAFKA_SSL is not true');
}

/** The validated fields as @cardlens/bus's `KafkaBusOptions.security`. */
export function kafkaSecurity(value: KafkaConnectionValues) {
  const mechanism = value.KAFKA_SASL_MECHANISM;
  return {
    tls: value.KAFKA_SSL
      ? { caFile: value.KAFKA_SSL_CA_FILE, certFile: value.KAFKA_SSL_CERT_FILE, keyFile: value.KAFKA_SSL_KEY_FILE, rejectUnauthorized: value.KAFKA_SSL_REJECT_UNAUTHORIZED }
      : undefined,
    sasl: !mechanism
      ? undefined
      : mechanism === 'aws-msk-iam'
        ? { mechanism, region: value.KAFKA_AWS_REGION! }
        : { mechanism, username: value.KAFKA_SASL_USERNAME!, password: value.KAFKA_SASL_PASSWORD! },
  };
}
