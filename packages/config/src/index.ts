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
  /** Where a service keeps its data: a Postgres URL in production and CI, or the embedded PGlite folder. */
  database: () =>
    z.object({
      DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
      PGLITE_DIR: z.string().default('.data/pglite'),
    }),
};

export { z };
