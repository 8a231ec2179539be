import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import { AppError, problemFor, PROBLEM_CONTENT_TYPE, type ErrorCode } from '@cardlens/errors';

/**
 * The HTTP server's own limits, so slow or oversized requests cannot hold a gateway: headers must arrive within
 * `headersTimeoutMs` (idle half-sent headers are closed), the whole request within `requestTimeoutMs` (a body
 * trickled at a few bytes a second is cut off), and idle keep-alive connections close after `keepAliveTimeoutMs`
 * (above the load balancer's idle timeout, so the proxy, not the gateway, closes first). Errors Node answers
 * itself before express sees the request (timeouts, oversized or malformed headers) are problem+json too.
 */
export function applyServerLimits(server: Server, limits: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number }, baseUrl: () => string): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  // Node checks the two timeouts on this interval; the default (30 s) would let a slow request overstay.
  server.timeout = 0;
  (server as Server & { connectionsCheckingInterval?: number }).connectionsCheckingInterval = Math.min(1000, limits.headersTimeoutMs);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const code: ErrorCode =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'request_timeout' : error.code === 'HPE_HEADER_OVERFLOW' ? 'headers_too_large' : 'invalid_body';
    const detail =
      code === 'request_timeout'
        ? `The request was not received in time: headers within ${limits.headersTimeoutMs / 1000} s, the whole request within ${limits.requestTimeoutMs / 1000} s.`
        : code === 'headers_too_large'
          ? 'The request headers are larger than the server accepts (16 KB).'
          : 'The request is not valid HTTP.';
    const body = JSON.stringify(problemFor(baseUrl(), code, detail));
    socket.end(
      `HTTP/1.1 ${problemFor('', code).status} ${problemFor('', code).title}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

/** Seconds a client is asked to wait while the gateway is still starting (a first embedded start loads the catalog). */
const STARTING_RETRY_AFTER_S = 5;

/**
 * The server's answer before the app is attached: 503 service_unavailable with Retry-After, at once, and the
 * connection closed (an unanswered request would hang its client and hold a graceful shutdown).
 */
export function answerWhileStarting(baseUrl: string): (req: IncomingMessage, res: ServerResponse) => void {
  return (_req, res) => {
    const problem = problemFor(baseUrl, 'service_unavailable', `The service is starting. Retry in ${STARTING_RETRY_AFTER_S} s.`);
    const body = JSON.stringify(problem);
    res.writeHead(problem.status, { 'Content-Type': PROBLEM_CONTENT_TYPE, 'Content-Length': Buffer.byteLength(body), 'Retry-After': String(STARTING_RETRY_AFTER_S), Connection: 'close' });
    res.end(body);
  };
}

/**
 * Refuses a body by its declared Content-Length before a byte of it is read: 413 body_too_large at once, and the
 * connection is closed rather than drained. `limitFor` gives the largest body the request's route accepts.
 */
export function refuseOversizedBodies(limitFor: (req: Request) => number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const declared = Number(req.get('content-length'));
    const limit = limitFor(req);
    if (Number.isFinite(declared) && declared > limit) {
      res.setHeader('Connection', 'close');
      next(new AppError('body_too_large', `The body (${declared} bytes) exceeds the ${limit} bytes this endpoint accepts.`));
      return;
    }
    next();
  };
}
