import { createServer, type Server } from 'node:http';
import client from 'prom-client';

/**
 * Prometheus metrics. One registry per process (prom-client's default), so a metric is declared next to the code
 * it measures and every service of the embedded process shares one scrape. Names are `cardlens_*`; durations are
 * in seconds (Prometheus convention); labels are low-cardinality (routes as templates, never ids or keys).
 */
export const metricsRegistry = client.register;
export { client as prometheus };

let defaultsCollected = false;

/** Latency buckets for requests and calls: 5 ms to 60 s. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** A histogram or counter declared once per process even when a module is evaluated twice (tests). */
export function histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets = LATENCY_BUCKETS): client.Histogram<L> {
  return (metricsRegistry.getSingleMetric(name) as client.Histogram<L> | undefined) ?? new client.Histogram<L>({ name, help, labelNames, buckets });
}

export function gauge<L extends string>(name: string, help: string, labelNames: readonly L[]): client.Gauge<L> {
  return (metricsRegistry.getSingleMetric(name) as client.Gauge<L> | undefined) ?? new client.Gauge<L>({ name, help, labelNames });
}

export function counter<L extends string>(name: string, help: string, labelNames: readonly L[]): client.Counter<L> {
  return (metricsRegistry.getSingleMetric(name) as client.Counter<L> | undefined) ?? new client.Counter<L>({ name, help, labelNames });
}

/**
 * A gauge whose value is read when Prometheus scrapes (queue depths, ages, backlogs): `read` runs at scrape time,
 * so the number is current and nothing polls in between. Several sources may feed one gauge (the embedded
 * process runs every service); a failing source is left out of that scrape. Returns the function that removes
 * this source (call it when what it reads is closed).
 */
export function scrapedGauge<L extends string>(name: string, help: string, labelNames: readonly L[], read: (set: (labels: Partial<Record<L, string>>, value: number) => void) => Promise<void> | void): () => void {
  const existing = metricsRegistry.getSingleMetric(name) as (client.Gauge<L> & { sources?: Array<typeof read> }) | undefined;
  const remove = (list: Array<typeof read>) => () => {
    const at = list.indexOf(read);
    if (at >= 0) list.splice(at, 1);
  };
  if (existing?.sources) {
    existing.sources.push(read);
    return remove(existing.sources);
  }
  const sources: Array<typeof read> = [read];
  const gauge = new client.Gauge<L>({
    name,
    help,
    labelNames,
    async collect() {
      this.reset();
      await Promise.all(sources.map(async (source) => {
        try {
          await source((labels, value) => this.set(labels as client.LabelValues<L>, value));
        } catch {
          // A source that cannot answer (database down) is absent from this scrape rather than failing it.
        }
      }));
    },
  }) as client.Gauge<L> & { sources?: Array<typeof read> };
  gauge.sources = sources;
  return remove(sources);
}

export interface MetricsServer {
  port: number;
  stop(): Promise<void>;
}

/**
 * Serves GET /metrics (Prometheus text format) on its own port, never the public one: the chart's ServiceMonitor
 * scrapes it inside the cluster. Process metrics (CPU, memory, event-loop lag, GC) are included.
 */
export async function startMetricsServer(options: { port: number; host?: string; service: string }): Promise<MetricsServer> {
  metricsRegistry.setDefaultLabels({ service: options.service });
  if (!defaultsCollected) {
    client.collectDefaultMetrics({ register: metricsRegistry, prefix: 'cardlens_' });
    defaultsCollected = true;
  }
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    metricsRegistry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': metricsRegistry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
