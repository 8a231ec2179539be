import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from '@jest/globals';
import { createLogger, type Logger } from '@cardlens/telemetry';
import { createApp } from '../../src/app';
import type { Downstream } from '../../src/downstream';
import { createRateLimiters } from '../../src/http/rate-limits';

/**
 * The gateway app over real HTTP on a loopback port, in front of a fake downstream (route tests): started before
 * the file's tests, closed after them. `origin` is readable once the tests run. A fake without the balance copy
 * reads every balance through its getBalance (the gateway without the bus).
 */
export function useTestGateway(downstream: Downstream, options: { perKeyPerMinute?: number; logger?: Logger } = {}): { readonly origin: string } {
  let server: Server | undefined;
  let origin = '';
  beforeAll(async () => {
    const limiters = createRateLimiters({ perKeyPerMinute: options.perKeyPerMinute ?? 1000, registrationAttemptsPerHour: 10, newAgentsPerDay: 10, openPerMinute: 1000 }, undefined, 'test');
    const logger = options.logger ?? createLogger('gateway-test', { write: () => undefined });
    const withBalances: Downstream = Object.assign(
      { readCredits: async (agentId: number) => (await downstream.getBalance(agentId)).credits, forgetAgentViews: () => undefined },
      downstream,
    );
    server = createServer(createApp({ downstream: withBalances, limiters, baseUrl: 'http://gateway.test', trustProxyHops: 0, logger, images: {} as never }));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));
  return {
    get origin() {
      return origin;
    },
  };
}
