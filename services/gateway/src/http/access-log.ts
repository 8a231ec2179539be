import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { activeTrace, type Logger } from '@cardlens/telemetry';

/**
 * Names the request for the client and for us: `X-Request-Id` is the request's W3C trace id (a random 128-bit
 * id where no trace is active), `traceresponse` (W3C Trace Context level 2) carries the trace and span ids,
 * and problem bodies repeat the id as `requestId`, so a client's report finds the trace and the log lines.
 */
export function requestId(): RequestHandler {
  return (_req: Request, res: Response, next: NextFunction) => {
    const active = activeTrace();
    // randomUUID draws from a cached entropy pool (randomBytes asks the OS each time): 122 random bits as hex.
    const id = active?.traceId ?? randomUUID().replaceAll('-', '');
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    if (active) res.setHeader('traceresponse', `00-${active.traceId}-${active.spanId}-${active.sampled ? '01' : '00'}`);
    next();
  };
}

const PROBES = new Set(['/healthz', '/readyz']);

/**
 * One JSON line per finished request: method, path without the query, status, duration, the request id, the
 * client IP and, once authenticated, the agent id, plus trace_id from the logger. Never headers, query strings or
 * bodies (keys, image URLs and payment data stay out). Probes are not logged. A 5xx, or a client that went away
 * before the answer was sent, is a warning. Written on the gateway's one logger rather than through pino-http,
 * whose per-request child logger cost more than the rest of a cached read.
 */
export function accessLog(logger: Logger): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const path = pathOf(req.originalUrl);
    if (PROBES.has(path)) return next();
    const started = performance.now();
    res.once('close', () => {
      const status = res.statusCode;
      const agentId = (res.locals.auth as { agent?: { agentId?: number } } | undefined)?.agent?.agentId;
      const line = {
        reqId: res.locals.requestId as string,
        req: { method: req.method, path },
        res: { status },
        responseTime: Math.round(performance.now() - started),
        clientIp: req.ip,
        ...(agentId !== undefined ? { agentId } : {}),
      };
      const message = `${req.method} ${path} ${status}`;
      if (status >= 500 || !res.writableFinished) logger.warn(line, res.writableFinished ? message : `${message} (client closed before the answer)`);
      else logger.info(line, message);
    });
    next();
  };
}

const pathOf = (url: string | undefined): string => (url ?? '').split('?')[0] ?? '';
