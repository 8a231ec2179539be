import { env, loadConfig, z } from '@cardlens/config';
import { parsePricing, type Pricing } from './domain/pricing';

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
  /** Whether hosted checkout can be offered (a Stripe key is configured). */
  STRIPE_SECRET_KEY: z.string().optional(),
  LOG_LEVEL: env.logLevel(),
  OTEL_EXPORTER: env.telemetryExporter(),
});

export type BillingConfig = z.infer<typeof billingConfigSchema>;

export function loadBillingConfig(source: NodeJS.ProcessEnv = process.env): BillingConfig {
  return loadConfig(billingConfigSchema, source, 'billing');
}
