import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, type Logger } from '@cardlens/telemetry';
import { createApp } from '../../src/app';
import type { Downstream } from '../../src/downstream';
import { createRateLimiters } from '../../src/http/rate-limits';

/** The gateway app over real HTTP on a loopback port, in front of a fake downstream (route tests). */
export async function startTestGateway(downstream: Downstream, options: { perKeyPerMinute?: number; logger?: Logger } = {}): Promise<{ origin: string; close(): Promise<void> }> {
  const limiters = createRateLimiters({ perKeyPerMinute: options.perKeyPerMinute ?? 1000, registrationAttemptsPerHour: 10, newAgentsPerDay: 10, openPerMinute: 1000 }, undefined, 'test');
  const logger = options.logger ?? createLogger('gateway-test', { write: () => undefined });
  const server = createServer(createApp({ downstream, limiters, baseUrl: 'http://gateway.test', trustProxyHops: 0, logger, images: {} as never }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
