import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { histogram } from '@cardlens/telemetry';

const requestSeconds = histogram('cardlens_http_request_duration_seconds', 'Gateway HTTP requests: duration by method, route template and status.', ['method', 'route', 'status']);

/**
 * Times every request to its last byte. The route is the matched template (`/v1/scans/:id`), never the
 * concrete path, so ids do not multiply the series; requests no route matched are `unmatched`.
 */
export function httpMetrics(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const done = requestSeconds.startTimer();
    res.once('finish', () => {
      const template = (req.route as { path?: unknown } | undefined)?.path;
      done({ method: req.method, route: typeof template === 'string' ? `${req.baseUrl}${template}` : 'unmatched', status: String(res.statusCode) });
    });
    next();
  };
}
