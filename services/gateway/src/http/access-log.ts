import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { pinoHttp } from 'pino-http';
import { activeTrace, type Logger } from '@cardlens/telemetry';

/**
 * Names the request for the client and for us: `X-Request-Id` is the request's W3C trace id (a random 128-bit
 * id where no trace is active), `traceresponse` (W3C Trace Context level 2) carries the trace and span ids,
 * and problem bodies repeat the id as `requestId`, so a client's report finds the trace and the log lines.
 */
export function requestId(): RequestHandler {
  return (_req: Request, res: Response, next: NextFunction) => {
    const active = activeTrace();
    const id = active?.traceId ?? randomBytes(16).toString('hex');
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    if (active) res.setHeader('traceresponse', `00-${active.traceId}-${active.spanId}-${active.sampled ? '01' : '00'}`);
    next();
  };
}

const PROBES = new Set(['/healthz', '/readyz']);

/**
 * One JSON line per finished request (pino-http): method, path without the query, status, duration, the
 * request id, the client IP and, once authenticated, the agent id, plus trace_id from the logger. Never headers,
 * query strings or bodies (keys, image URLs and payment data stay out). Probes are not logged.
 */
export function accessLog(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: (_req, res) => String((res as unknown as Response).locals.requestId),
    autoLogging: { ignore: (req) => PROBES.has(pathOf(req.url)) },
    quietReqLogger: true,
    serializers: {
      req: (req: { method: string; url: string }) => ({ method: req.method, path: pathOf(req.url) }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    customProps: (req, res) => {
      const agentId = (res as unknown as Response).locals?.auth?.agent?.agentId as number | undefined;
      return { clientIp: (req as unknown as Request).ip, ...(agentId !== undefined ? { agentId } : {}) };
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'warn' : 'info'),
    customSuccessMessage: (req, res) => `${req.method} ${pathOf(req.url)} ${res.statusCode}`,
    customErrorMessage: (req, res) => `${req.method} ${pathOf(req.url)} ${res.statusCode}`,
  }) as unknown as RequestHandler;
}

const pathOf = (url: string | undefined): string => (url ?? '').split('?')[0] ?? '';
