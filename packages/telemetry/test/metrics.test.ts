import { describe, expect, it } from '@jest/globals';
import { counter, histogram, metricsRegistry, scrapedGauge, startMetricsServer } from '../src/metrics';

describe('metrics', () => {
  it('serves the Prometheus text format on its own port, with process metrics and a service label', async () => {
    const server = await startMetricsServer({ port: 0, host: '127.0.0.1', service: 'metrics-test' });
    try {
      counter('cardlens_test_events_total', 'test', ['kind']).inc({ kind: 'a' });
      const response = await fetch(`http://127.0.0.1:${server.port}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/plain');
      const text = await response.text();
      expect(text).toContain('cardlens_test_events_total{kind="a",service="metrics-test"} 1');
      expect(text).toMatch(/cardlens_process_resident_memory_bytes\{service="metrics-test"\} \d+/);
      expect((await fetch(`http://127.0.0.1:${server.port}/`)).status).toBe(404);
    } finally {
      await server.stop();
    }
  });

  it('declares a metric once per process, however often its module is evaluated', () => {
    expect(histogram('cardlens_test_seconds', 'h', ['x'])).toBe(histogram('cardlens_test_seconds', 'h', ['x']));
  });

  it('reads scraped gauges at scrape time from every live source; a failing or removed source is left out', async () => {
    let depth = 3;
    const removeA = scrapedGauge('cardlens_test_depth', 'd', ['source'], (set) => set({ source: 'a' }, depth));
    scrapedGauge('cardlens_test_depth', 'd', ['source'], () => {
      throw new Error('database down');
    });
    expect(await metricsRegistry.getSingleMetricAsString('cardlens_test_depth')).toContain('cardlens_test_depth{source="a"');
    depth = 5;
    expect(await metricsRegistry.getSingleMetricAsString('cardlens_test_depth')).toMatch(/source="a"[^}]*\} 5/);
    removeA();
    expect(await metricsRegistry.getSingleMetricAsString('cardlens_test_depth')).not.toContain('source="a"');
  });
});
