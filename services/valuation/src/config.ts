import { CATALOG_DIR, PRICES_DIR } from '@cardlens/catalog-data';
import { env, kafkaConnectionFields, kafkaConnectionRules, loadConfig, z } from '@cardlens/config';

/** The catalogs the repository carries (packages/catalog-data/catalog), the default catalog source. */
export const DEFAULT_CATALOG_DIR = CATALOG_DIR;

export const valuationConfigSchema = z.object({
  VALUATION_GRPC_HOST: z.string().default('127.0.0.1'),
  VALUATION_GRPC_PORT: env.port(50055),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
  DATABASE_POOL_SIZE: env.positiveInt(10),
  MIGRATE_ON_START: env.bool(true),
  // KAFKA_BROKERS (a standalone process needs them; the embedded mode uses its in-process bus), TLS, SASL.
  ...kafkaConnectionFields,
  /** Folder of `*.ndjson(.gz)` catalogs loaded at start when the catalog table is empty (CATALOG_AUTOLOAD). */
  CATALOG_DIR: z.string().default(DEFAULT_CATALOG_DIR),
  /** Load the catalogs of CATALOG_DIR on first start (the embedded default); production imports by command. */
  CATALOG_AUTOLOAD: env.bool(false),
  /**
   * Folder of the dated market-price snapshot (tcgplayer-*.csv.gz daily market prices, graded-*.csv tables)
   * loaded on first start when no market prices are stored (PRICES_AUTOLOAD).
   */
  PRICES_DIR: z.string().default(PRICES_DIR),
  /** Load PRICES_DIR's snapshot on first start (the embedded default); production imports by command. */
  PRICES_AUTOLOAD: env.bool(false),
  /**
   * Generate the documented sample sales on first start when no sales exist (the embedded demo). Responses built
   * on them say so (ValueEstimate.sample_data, MarketAnalysis.context). Never on in production.
   */
  SAMPLE_SALES: env.bool(false),
  /** Share of catalog cards that get sample sales (popularity-weighted). */
  SAMPLE_SALES_SHARE: z.coerce.number().gt(0).max(1).default(0.05),
  SAMPLE_SALES_SEED: env.int(20261124),
  /** Cost of professional grading (fee + shipping + insurance) used by the grading recommendation, in cents. */
  GRADING_COST_CENTS: env.int(3000).pipe(z.number().int().min(0)),
  /** How often replicas re-read the stored grade-premium fit. */
  PREMIUM_RELOAD_SECONDS: env.positiveInt(300),
  LOG_LEVEL: env.logLevel(),
  OTEL_EXPORTER: env.telemetryExporter(),
  METRICS_PORT: env.metricsPort(),
}).superRefine(kafkaConnectionRules);

export type ValuationConfig = z.infer<typeof valuationConfigSchema>;

export function loadValuationConfig(source: NodeJS.ProcessEnv = process.env): ValuationConfig {
  return loadConfig(valuationConfigSchema, source, 'valuation');
}
