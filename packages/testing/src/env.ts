export type InfraKind = 'postgres' | 'redis' | 'kafka';

export const INFRA_KINDS: readonly InfraKind[] = ['postgres', 'redis', 'kafka'];

export interface InfraUrls {
  /** DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/postgres */
  databaseUrl: string;
  /** REDIS_URL, default redis://127.0.0.1:6379 */
  redisUrl: string;
  /** KAFKA_BROKERS split on commas, default ['127.0.0.1:9092'] */
  kafkaBrokers: string[];
}

export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_KAFKA_BROKERS = '127.0.0.1:9092';

function fromEnv(name: string, fallback: string): string {
  const value = process.env[name]?.trim();
  return value ? value : fallback;
}

/** Connection settings for the test infrastructure, read from the environment at call time. */
export function infraUrls(): InfraUrls {
  return {
    databaseUrl: fromEnv('DATABASE_URL', DEFAULT_DATABASE_URL),
    redisUrl: fromEnv('REDIS_URL', DEFAULT_REDIS_URL),
    kafkaBrokers: fromEnv('KAFKA_BROKERS', DEFAULT_KAFKA_BROKERS)
      .split(',')
      .map((broker) => broker.trim())
      .filter((broker) => broker.length > 0),
  };
}

/** True when tests run in CI, where a missing service is a failure, never a skip. */
export function isCi(): boolean {
  return process.env.CI === 'true';
}

/** Human-readable target of one kind, for messages. */
export function describeTarget(kind: InfraKind, urls: InfraUrls = infraUrls()): string {
  switch (kind) {
    case 'postgres':
      return redactUrl(urls.databaseUrl);
    case 'redis':
      return redactUrl(urls.redisUrl);
    case 'kafka':
      return urls.kafkaBrokers.join(',');
  }
}

function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(unparseable URL)';
  }
}

export interface HostPort {
  host: string;
  port: number;
}

/** TCP endpoints of one kind, or null when they cannot be told from the settings (e.g. a Unix socket). */
export function tcpEndpoints(kind: InfraKind, urls: InfraUrls = infraUrls()): HostPort[] | null {
  const fromUrl = (raw: string, defaultPort: number): HostPort[] | null => {
    try {
      const url = new URL(raw);
      if (!url.hostname) return null;
      return [{ host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port ? Number(url.port) : defaultPort }];
    } catch {
      return null;
    }
  };
  switch (kind) {
    case 'postgres':
      return fromUrl(urls.databaseUrl, 5432);
    case 'redis':
      return fromUrl(urls.redisUrl, 6379);
    case 'kafka':
      return urls.kafkaBrokers.map((broker) => {
        const index = broker.lastIndexOf(':');
        const host = index > 0 ? broker.slice(0, index) : broker;
        const port = index > 0 ? Number(broker.slice(index + 1)) : 9092;
        return { host: host.replace(/^\[(.*)\]$/, '$1'), port };
      });
  }
}
