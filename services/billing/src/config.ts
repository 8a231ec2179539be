import { env, kafkaConnectionFields, kafkaConnectionRules, loadConfig, z } from '@cardlens/config';
import { parsePricing, type Pricing } from './domain/pricing';
import { DEFAULT_SPT_API_VERSION } from './payments/stripe-provider';

export const billingConfigSchema = z.object({
  BILLING_GRPC_HOST: z.string().default('127.0.0.1'),
  BILLING_GRPC_PORT: env.port(50052),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
  DATABASE_POOL_SIZE: env.positiveInt(10),
  MIGRATE_ON_START: env.bool(true),
  /** Size of the global daily trial pool, in credits per UTC day. */
  TRIAL_POOL_DAILY_CREDITS: env.int(5000).pipe(z.number().int().min(0)),
  /** Optional JSON overriding parts of the price configuration (see domain/pricing.ts). */
  PRICING_JSON: z
    .string()
    .optional()
    .transform((value, ctx): Pricing => {
      try {
        return parsePricing(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `invalid price configuration: ${(error as Error).message}` });
        return z.NEVER;
      }
    }),
  // KAFKA_BROKERS (a standalone process needs them; the embedded mode uses its in-process bus), TLS, SASL.
  ...kafkaConnectionFields,
  /** The gateway's public base URL: checkout success/cancel pages and the sandbox checkout page live under it. */
  PUBLIC_BASE_URL: z.url().optional(),
  /** Written into every payment object's metadata; events of another environment on the same Stripe account are ignored. */
  DEPLOYMENT_ENVIRONMENT: z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'lower-case letters, digits and dashes').default('local'),
  /** Stripe secret key. Absent: the local sandbox payment provider (no money moves), refused in production. */
  STRIPE_SECRET_KEY: z.string().startsWith('sk_', 'must be a Stripe secret key (sk_...)').optional(),
  /** Signing secret of the webhook endpoint (whsec_...). Required with a Stripe key; the sandbox makes one up when absent. */
  STRIPE_WEBHOOK_SECRET: z.string().min(8).optional(),
  /** Only for tests against a fake Stripe server (http://127.0.0.1:PORT); production leaves it unset. */
  STRIPE_API_BASE_URL: z.url().optional(),
  STRIPE_TIMEOUT_MS: env.positiveInt(10_000),
  /** The shared payment token rail (Stripe private preview). Needs a Stripe key. */
  SPT_ENABLED: env.bool(false),
  STRIPE_SPT_API_VERSION: z.string().default(DEFAULT_SPT_API_VERSION),
  /**
   * Lifetime of a hosted checkout session. Stripe accepts 30 minutes to 24 hours after creation; the default is
   * 24 h less two minutes, so a clock slightly ahead of Stripe's is never refused.
   */
  CHECKOUT_SESSION_TTL_MINUTES: env.positiveInt(24 * 60 - 2).pipe(z.number().int().min(30).max(24 * 60)),
  LOG_LEVEL: env.logLevel(),
  OTEL_EXPORTER: env.telemetryExporter(),
  METRICS_PORT: env.metricsPort(),
}).superRefine((config, ctx) => {
  const problem = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (config.STRIPE_SECRET_KEY) {
    if (!config.STRIPE_WEBHOOK_SECRET) problem('STRIPE_WEBHOOK_SECRET', 'required with STRIPE_SECRET_KEY (the webhook endpoint signing secret)');
    if (!config.PUBLIC_BASE_URL) problem('PUBLIC_BASE_URL', 'required with STRIPE_SECRET_KEY (checkout success and cancel URLs)');
  } else {
    if (config.DEPLOYMENT_ENVIRONMENT === 'production') problem('STRIPE_SECRET_KEY', 'required in production: the sandbox payment provider refuses to run there');
    if (config.SPT_ENABLED) problem('SPT_ENABLED', 'the shared payment token rail needs STRIPE_SECRET_KEY (the sandbox has no tokens)');
  }
  if (config.STRIPE_API_BASE_URL && config.DEPLOYMENT_ENVIRONMENT === 'production') problem('STRIPE_API_BASE_URL', 'test-only; never set in production');
}).superRefine(kafkaConnectionRules);

export type BillingConfig = z.infer<typeof billingConfigSchema>;

export function loadBillingConfig(source: NodeJS.ProcessEnv = process.env): BillingConfig {
  return loadConfig(billingConfigSchema, source, 'billing');
}
