import { createServer, type RequestListener, type Server } from 'node:http';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Bus } from '@cardlens/bus';
import { events } from '@cardlens/contracts';
import type { Logger } from '@cardlens/telemetry';
import { createApp } from './app';
import type { GatewayConfig } from './config';
import { createDownstream } from './downstream';
import { answerWhileStarting, applyServerLimits } from './http/edge';
import { createLimitsRedis, createRateLimiters } from './http/rate-limits';

/** The gateway's bound HTTP server before the app is attached: lets a caller learn the base URL first. */
export interface GatewayListener {
  server: Server;
  port: number;
  baseUrl: string;
  /** Replaces the "starting" answer with the app: from now on every request goes to it. */
  attach(app: RequestListener): void;
}

/**
 * Binds the HTTP port. The embedded mode listens first so billing, started before the gateway, knows the public
 * base URL its checkout links point to. Until `attach`, every request is answered at once with 503
 * service_unavailable and Retry-After, and its connection closed: a request left unanswered during a long first
 * start would hang its client and hold the connection open, which stalls a graceful shutdown.
 */
export async function listenGateway(
  config: Pick<GatewayConfig, 'GATEWAY_PORT' | 'GATEWAY_HOST' | 'PUBLIC_BASE_URL' | 'HTTP_HEADERS_TIMEOUT_MS' | 'HTTP_REQUEST_TIMEOUT_MS' | 'HTTP_KEEP_ALIVE_TIMEOUT_MS'>,
): Promise<GatewayListener> {
  const server: Server = createServer();
  let baseUrl = '';
  applyServerLimits(server, { headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS, requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS, keepAliveTimeoutMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS }, () => baseUrl);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.GATEWAY_PORT, config.GATEWAY_HOST, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.GATEWAY_PORT;
  const host = config.GATEWAY_HOST.includes(':') ? `[${config.GATEWAY_HOST}]` : config.GATEWAY_HOST;
  baseUrl = (config.PUBLIC_BASE_URL ?? `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`).replace(/\/+$/, '');
  const whileStarting = answerWhileStarting(baseUrl);
  server.on('request', whileStarting);
  return {
    server,
    port,
    baseUrl,
    attach: (app) => {
      server.off('request', whileStarting);
      server.on('request', app);
    },
  };
}

export interface RunningGateway {
  port: number;
  baseUrl: string;
  stop(): Promise<void>;
}

/**
 * Wires the gateway: downstream gRPC clients, rate limiters (Redis or memory), billing's balance announcements
 * (with a bus), the express app. The bus is the caller's to start and stop; without one the gateway keeps no
 * copy of balances.
 */
export async function startGateway(options: { config: GatewayConfig; logger: Logger; listener?: GatewayListener; bus?: Bus }): Promise<RunningGateway> {
  const { config, logger, bus } = options;
  const redis = config.REDIS_URL ? createLimitsRedis(config.REDIS_URL) : undefined;
  const limiters = createRateLimiters(
    {
      perKeyPerMinute: config.RATE_LIMIT_PER_KEY_PER_MINUTE,
      registrationAttemptsPerHour: config.RATE_LIMIT_REGISTRATION_ATTEMPTS_PER_HOUR,
      newAgentsPerDay: config.RATE_LIMIT_NEW_AGENTS_PER_DAY,
      openPerMinute: config.RATE_LIMIT_OPEN_PER_MINUTE,
    },
    redis,
    config.RATE_LIMIT_KEY_PREFIX,
    logger,
  );
  let listenerBaseUrl = '';
  const downstream = createDownstream({
    accountsAddress: config.ACCOUNTS_GRPC_ADDRESS,
    billingAddress: config.BILLING_GRPC_ADDRESS,
    scansAddress: config.SCANS_GRPC_ADDRESS,
    gradingAddress: config.GRADING_GRPC_ADDRESS,
    deadlineMs: config.GRPC_DEADLINE_MS,
    scanCreateDeadlineMs: config.SCAN_CREATE_DEADLINE_MS,
    gradeDeadlineMs: config.GRADE_DEADLINE_MS,
    authCacheTtlMs: config.AUTH_CACHE_TTL_MS,
    billingViewTtlMs: bus ? config.BILLING_VIEW_TTL_MS : 0,
    problemBaseUrl: () => listenerBaseUrl,
  });
  // Every replica must hear every announcement, so each has groups of its own, starting at the newest message
  // (its copies start empty). Forgetting is idempotent, so a redelivery is harmless.
  const replica = `${hostname()}-${randomUUID().slice(0, 8)}`;
  const announcements = bus
    ? [
        await bus.subscribe({
          topic: events.balanceChanged.topic,
          groupId: `gateway-balances-${replica}`,
          startFrom: 'latest',
          handler: async (message) => downstream.forgetAgentViews(events.balanceChanged.decode(message.value).agentId),
        }),
        await bus.subscribe({
          topic: events.subscriptionChanged.topic,
          groupId: `gateway-subscriptions-${replica}`,
          startFrom: 'latest',
          handler: async (message) => {
            const change = events.subscriptionChanged.decode(message.value);
            downstream.forgetSubscription(change.everyAgent ? 'every-agent' : change.agentId);
          },
        }),
      ]
    : [];

  // The base URL is only known after listen() when the port is 0 (tests, embedded mode).
  const listener = options.listener ?? (await listenGateway(config));
  const { server, port, baseUrl } = listener;
  listenerBaseUrl = baseUrl;

  const app = createApp({
    downstream,
    limiters,
    baseUrl,
    trustProxyHops: config.TRUST_PROXY_HOPS,
    logger,
    images: { fetchTimeoutMs: config.IMAGE_FETCH_TIMEOUT_MS, allowLoopback: config.IMAGE_FETCH_ALLOW_LOOPBACK },
  });
  listener.attach(app);
  logger.info({ baseUrl }, 'gateway listening');

  return {
    port,
    baseUrl,
    stop: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await Promise.all(announcements.map((subscription) => subscription.stop()));
      downstream.close();
      redis?.disconnect();
    },
  };
}
