import { constants as zlib } from 'node:zlib';
import compression from 'compression';
import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import { AppError } from '@cardlens/errors';
import type { Logger } from 'pino';
import type { AppContext } from './application/context';
import type { Downstream } from './downstream';
import { accessLog, requestId } from './http/access-log';
import { refuseOversizedBodies } from './http/edge';
import { httpMetrics } from './http/http-metrics';
import { MAX_IMAGE_BYTES, photoLoader } from './http/image-intake';
import type { RateLimiters } from './http/rate-limits';
import { sendProblem } from './http/problem';
import { agentRoutes } from './routes/agents';
import { pricingRoutes } from './routes/pricing';
import { purchaseRoutes, WEBHOOK_BODY_LIMIT, webhookRoutes } from './routes/purchases';
import { reportRoutes } from './routes/reports';
import { docsRoutes } from './routes/docs';
import { gradeRoutes } from './routes/grades';
import { mcpRoutes } from './routes/mcp';
import type { ImageFetchSettings } from './routes/scans';
import { scanRoutes } from './routes/scans';
import { subscriptionRoutes } from './routes/subscriptions';

export interface AppDeps {
  downstream: Downstream;
  limiters: RateLimiters;
  baseUrl: string;
  trustProxyHops: number;
  logger: Logger;
  /** Image URL intake of POST /v1/scans and POST /v1/grades. */
  images: ImageFetchSettings;
}

const JSON_BODY_LIMIT = '64kb';
const JSON_BODY_LIMIT_BYTES = 64 * 1024;
/** Two photos of at most 15 MB and the form's other parts. */
const MULTIPART_BODY_LIMIT = 2 * MAX_IMAGE_BYTES + 64 * 1024;

/**
 * Security headers (helmet): nosniff, HSTS (a year, subdomains: the API is only served over TLS behind the
 * ingress), no framing, no referrer, and a CSP for the few HTML pages (docs, checkout return, sandbox
 * checkout and portal): inline styles only, no scripts. No form-action: a sandbox checkout form answers with a
 * redirect to the caller's own return URL. No CORS headers are sent: API keys never belong in browser code, so
 * browsers are not offered cross-origin access (documented in the OpenAPI description).
 */
const SECURITY_HEADERS = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], styleSrc: ["'unsafe-inline'"], imgSrc: ["'self'", 'data:'], baseUri: ["'none'"], frameAncestors: ["'none'"] },
  },
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
  frameguard: { action: 'deny' as const },
  referrerPolicy: { policy: 'no-referrer' as const },
  crossOriginResourcePolicy: { policy: 'same-origin' as const },
};

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxyHops);
  app.set('query parser', 'simple');
  app.use(requestId());
  app.use(httpMetrics());
  app.use(accessLog(deps.logger));
  app.use(helmet(SECURITY_HEADERS));
  // gzip or br by Accept-Encoding, for compressible types above 1 KiB (JSON answers, the OpenAPI document;
  // PNG overlays are already compressed and pass through).
  app.use(compression({ brotli: { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } } }));

  // A body larger than its route accepts is refused by its Content-Length before any of it is read.
  app.use(refuseOversizedBodies((req) => (req.is('multipart/form-data') ? MULTIPART_BODY_LIMIT : req.path === '/v1/webhooks/stripe' ? WEBHOOK_BODY_LIMIT : JSON_BODY_LIMIT_BYTES)));
  // Before the JSON parser: the webhook's signature covers the raw bytes.
  app.use(webhookRoutes(deps));
  app.use(express.json({ limit: JSON_BODY_LIMIT, strict: false, type: ['application/json', 'application/*+json'] }));

  // The use cases behind the REST routes (and the MCP tools): one context for all of them.
  const ctx: AppContext = { downstream: deps.downstream, limiters: deps.limiters, baseUrl: deps.baseUrl, photos: photoLoader(deps.images) };
  app.use(docsRoutes({ baseUrl: deps.baseUrl, limiters: deps.limiters, readiness: async () => ({ ...(await deps.downstream.readiness()), rateLimits: deps.limiters.store() }) }));
  app.use(agentRoutes(ctx));
  app.use(scanRoutes(ctx));
  app.use(reportRoutes(ctx));
  app.use(gradeRoutes(ctx));
  app.use(pricingRoutes(deps));
  app.use(purchaseRoutes(ctx));
  // After the JSON parser (checkout and change-plan take JSON); the sandbox portal's forms parse their own bodies.
  app.use(subscriptionRoutes(ctx));
  app.use(mcpRoutes(ctx, deps.logger));

  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new AppError('not_found', `No route for ${req.method} ${req.path}. See ${deps.baseUrl}/openapi.json.`));
  });

  // Every error leaves as problem+json; details of unexpected ones stay in the logs.
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const mapped = mapExpressError(error);
    if (!(mapped instanceof AppError) || mapped.httpStatus >= 500) {
      deps.logger.error({ err: error, method: req.method, path: req.path }, 'request failed');
    }
    if (res.headersSent) return;
    sendProblem(res, deps.baseUrl, mapped);
  });
  return app;
}

/**
 * body-parser (JSON and the sandbox forms) reports its failures with a `type` and a 4xx `status`; every one of
 * them is the client's and becomes its 4xx problem by status, whatever the type (a new one included). Their
 * `body` (the raw request) is never logged: the logger redacts `err.body`. Multer's are mapped where uploads
 * are read (http/image-intake.ts).
 */
function mapExpressError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  const failure = error as { type?: unknown; status?: unknown; statusCode?: unknown; limit?: unknown } | null;
  const type = typeof failure?.type === 'string' ? failure.type : undefined;
  const status = Number(failure?.status ?? failure?.statusCode);
  if (type === undefined || !(status >= 400 && status < 500)) return error;
  // A body that cannot be used as sent (body-parser says 413 for too many form fields: it is not about size).
  const invalid: Record<string, string> = {
    'entity.parse.failed': 'The request body is not valid JSON.',
    'parameters.too.many': 'The form has more fields than this endpoint accepts.',
    'request.aborted': 'The request body was incomplete.',
    'request.size.invalid': 'The request body was incomplete.',
  };
  if (invalid[type]) return new AppError('invalid_body', invalid[type]);
  if (status === 413) {
    return new AppError('body_too_large', `The body exceeds ${typeof failure?.limit === 'number' ? `${failure.limit} bytes` : JSON_BODY_LIMIT}.`);
  }
  if (status === 415) return new AppError('unsupported_media_type', 'Unsupported body encoding or charset.');
  return new AppError('invalid_body', 'The request body could not be read.');
}
